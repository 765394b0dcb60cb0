/*
 * Test helper: allocates MIB mebibytes, touches every page so that they are
 * resident, and exits 0.  alloc MIB
 */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t size;
	char *p;

	if (argc != 2)
		return 2;
	size = (size_t)strtoul(argv[1], NULL, 10) << 20;
	p = malloc(size);
	if (!p)
		return 3;
	memset(p, 1, size);
	return p[size / 2] == 1 ? 0 : 4;
}
