/*
 * module-layout.c: a stand-in vmlinux for kmod_guest_layout_of, built
 * twice: with struct module as Linux 6.1 has it (core_layout) and, with
 * -DMODULE_MEMORY, as Linux 6.4 and later have it (mem[]).  Only the
 * members kmod reads are named as the kernel names them; the padding
 * puts each at an offset test-kmod.c checks, the same in both builds.
 */
struct list_head {
	struct list_head *next, *prev;
};

#ifdef MODULE_MEMORY
struct module_memory {
	void *base;	   /* 128 + 24 * i */
	unsigned int size; /* 136 + 24 * i */
	char tree[12];
};
#else
struct module_layout {
	void *base;		/* 128 */
	unsigned int size;	/* 136 */
	unsigned int text_size; /* 140 */
	unsigned int ro_size, ro_after_init_size;
};
#endif

struct module {
	int state;		/* 0 */
	struct list_head list;	/* 8 */
	char name[56];		/* 24 */
	char before_layout[48]; /* 80 */
#ifdef MODULE_MEMORY
	struct module_memory mem[7]; /* 128; mem[MOD_TEXT = 0] first */
#else
	struct module_layout core_layout, init_layout; /* 128, 152 */
	char more[120];
#endif
	unsigned int num_exentries; /* 296 */
	void *extable;		    /* 304 */
};

struct list_head modules;
struct module one;

/* The kernel's function beside the list, in whose CU kmod looks for struct module. */
struct module *__module_address(unsigned long addr)
{
	return addr ? &one : (struct module *)modules.next;
}

void _start(void)
{
	__module_address(0);
	for (;;)
		;
}
