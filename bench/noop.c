/*
 * The smallest program to start: bench/spawn links it statically, so that
 * its start cost is process creation and exec, and no dynamic loader.
 */
int main(void)
{
	return 0;
}
