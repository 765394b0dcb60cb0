/*
 * Test helper: does nothing. Linked statically (the Makefile links helpers
 * whose name ends in _static with -static), it is the smallest program a
 * starter can run: its peak RSS shows the floor itself.
 */
int main(void)
{
	return 0;
}
