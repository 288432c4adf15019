/* kmod_priv.h: the state kmod.c and kmod_guest.c share (not an interface). */
#ifndef CSAN_WATCH_KMOD_PRIV_H
#define CSAN_WATCH_KMOD_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "watch/kmod.h"
#include "watch/orc.h"
#include "watch/sym.h"
#include "watch/unwind.h"

#define KMOD_NAME_MAX 64
#define KMOD_DIRS     4
/* Room between two made-up module places: more than any module's size. */
#define KMOD_SYNTH_GAP (1ull << 28)

/* A .ko file found in the directories, by its module name. */
struct ko_file {
	char name[KMOD_NAME_MAX]; /* "-" as "_" */
	char *path;
};

/* A module asked for: loaded into the Dwfl, or known to be missing. */
struct ko_loaded {
	char name[KMOD_NAME_MAX];
	Dwfl_Module *mod; /* NULL: not found or unreadable (said once) */
};

/* One text section of a module loaded in the guest: where it is there and in the Dwfl. */
struct kmod_text {
	uint64_t guest, host, size;
	char name[KMOD_SECTION_NAME_MAX]; /* ".text", ".altinstr_replacement", ... */
};

/* A module the guest has loaded (hw mode), as its struct module says. */
struct kmod_placed {
	char name[KMOD_NAME_MAX];
	uint64_t base, text_size; /* its core text's start and size in the guest */
	Dwfl_Module *mod;	  /* its .ko in the Dwfl (at a made-up place) */
	struct kmod_text *text;	  /* its core text sections */
	unsigned ntext;
	struct orc_table *orc; /* its ORC entries at guest addresses, or NULL */
	bool live;	       /* in the guest's list at the last look */
	unsigned state;	       /* enum kmod_state at the last look */
	uint64_t extable;      /* struct module's extable and num_exentries, or 0 */
	uint32_t num_exentries;
};

struct kmod {
	pthread_mutex_t lock; /* all below; taken before the sym's Dwfl lock */
	struct sym *sym;
	char *dirs[KMOD_DIRS];
	unsigned ndirs;
	void (*note)(void *ctx, const char *msg);
	void *note_ctx;
	/* kmod's thread (service in kmod.c): the walk, then .ko loading. */
	pthread_t service;
	bool service_running;
	pthread_mutex_t req_lock; /* indexed, stop and the request; taken alone */
	pthread_cond_t req_cv;
	bool indexed, stop;
	int req_state; /* 0 none, 1 asked, 2 done */
	const char *req_name, *req_path;
	Dwfl_Module *req_result;
	struct ko_file *files;
	size_t nfiles, capfiles;
	struct ko_loaded *loaded;
	size_t nloaded, caploaded;
	uint64_t next_base;
	/* hw mode: the guest's modules.  map_lock is taken last, alone. */
	pthread_mutex_t map_lock;
	int layout_state; /* 0: not looked for, 1: found, -1: not there */
	struct kmod_guest_layout layout;
	struct orc_table **old_orc; /* replaced tables: an unwind may still hold one */
	size_t nold_orc;
	enum orc_format orc_fmt;
	struct kmod_placed *placed;
	size_t nplaced, capplaced;
};

/* kmod.c's module loading, shared: @path into the Dwfl; NULL after saying why. */
Dwfl_Module *kmod_load_ko(struct kmod *k, const char *name, const char *path);
/* The .ko file of module @name (normalized), or NULL; under k->lock. */
const char *kmod_find_file(struct kmod *k, const char *name);
/* Normalize a module name ("-" as "_") into @out (KMOD_NAME_MAX). */
void kmod_norm_name(const char *s, size_t len, char *out);
/* The module called @name, its .ko loaded on first use; NULL if none. Under k->lock. */
Dwfl_Module *kmod_module_named(struct kmod *k, const char *name);
/* sym's remap hook: a guest address in a placed module's text to its Dwfl place. */
bool kmod_guest_to_host(void *mods, uint64_t guest, uint64_t *host);
/* The ORC layout of the vmlinux's entries (a module's are the same). */
enum orc_format kmod_vmlinux_orc_format(struct sym *sym);
/* Free the placed modules (kmod_free). */
void kmod_placed_free(struct kmod *k);

/*
 * kmod_grow - room for one more in the array @items (@n of *@cap used,
 * @size bytes each): the array itself while it has room, else the array
 * doubled (@first entries the first time) and *@cap raised.  Returns
 * NULL, with @items and *@cap untouched, when memory runs out.
 */
void *kmod_grow(void *items, size_t n, size_t *cap, size_t size, size_t first);

#endif /* CSAN_WATCH_KMOD_PRIV_H */
