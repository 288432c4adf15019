/* hello.c: a tiny program --add puts in the guest, built static and dynamic at make check time. */
#include <stdio.h>

int main(int argc, char **argv)
{
	/* The loader and libc ran: printf works, and the name says which build. */
	printf("csan-hello from %s, %d argument%s\n", argv[0], argc - 1, argc == 2 ? "" : "s");
	return argc > 1 ? 7 : 0;
}
