/* uninstr.c: scenario code built without -fsanitize=thread (placeholder). */

/*
 * Files in this directory go into libguest-uninstr.a, compiled with the
 * kernel's flags: their accesses are invisible to the soft-watchpoint
 * runtime, like a Linux file with KCSAN_SANITIZE_file.o := n or code in
 * inline asm.  The zoo's *-uninstr and uninstr-origin scenarios put their
 * unchecked halves here.  Empty for now.
 */
