/*
 * Test helper for terminal mode: checks that stdin is a terminal of 80x24,
 * switches it to raw mode and reads keys until "q", printing each key as
 * "key <bytes>". Exits 3 if one read returned more than one key (a key is a
 * byte, or one UTF-8 character): the typist must wait for each key to be read.
 */
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static size_t utf8_len(unsigned char c)
{
	if (c >= 0xf0)
		return 4;
	if (c >= 0xe0)
		return 3;
	if (c >= 0xc0)
		return 2;
	return 1;
}

int main(void)
{
	struct winsize ws;
	struct termios t;
	char buf[16];
	ssize_t n;

	if (!isatty(0) || ioctl(0, TIOCGWINSZ, &ws) < 0 || tcgetattr(0, &t) < 0)
		return 2;
	cfmakeraw(&t);
	tcsetattr(0, TCSANOW, &t);
	printf("size %dx%d\r\n", ws.ws_col, ws.ws_row);
	fflush(stdout);
	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n <= 0)
			return 4;
		if ((size_t)n != utf8_len((unsigned char)buf[0]))
			return 3;
		printf("key %.*s\r\n", (int)n, buf);
		fflush(stdout);
		if (buf[0] == 'q')
			return 0;
	}
}
