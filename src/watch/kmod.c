/* kmod.c: Linux module frames ("func+0x1c/0x80 [mod]") symbolized from mod.ko. */
#include <errno.h>
#include <ftw.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "watch/kmod.h"
#include "watch/kmod_priv.h"

/* A module's name as the kernel keeps it: "-" becomes "_". */
void kmod_norm_name(const char *s, size_t len, char *out)
{
	size_t i;

	if (len >= KMOD_NAME_MAX)
		len = KMOD_NAME_MAX - 1;
	for (i = 0; i < len; i++)
		out[i] = s[i] == '-' ? '_' : s[i];
	out[len] = '\0';
}

/* The length of @base's module name if it is a (maybe compressed) .ko, else 0. */
static size_t ko_stem(const char *base)
{
	static const char *const exts[] = { ".ko", ".ko.xz", ".ko.gz", ".ko.zst" };
	size_t n = strlen(base), i, e;

	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		e = strlen(exts[i]);
		if (n > e && strcmp(base + n - e, exts[i]) == 0)
			return n - e;
	}
	return 0;
}

void *kmod_grow(void *items, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t want;

	if (n < *cap)
		return items;
	want = *cap ? 2 * *cap : first;
	items = realloc(items, want * size);
	if (items)
		*cap = want;
	return items;
}

/* nftw's callback has no context argument: the index being built. */
static struct kmod *walking;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	struct ko_file *f;
	size_t stem;

	/* A kernel tree's .git holds no modules, and is large. */
	if (type == FTW_D && strcmp(base, ".git") == 0)
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F || !S_ISREG(st->st_mode) || !(stem = ko_stem(base)))
		return FTW_CONTINUE;
	f = kmod_grow(walking->files, walking->nfiles, &walking->capfiles, sizeof(*f), 64);
	if (!f)
		return FTW_STOP;
	walking->files = f;
	f = &walking->files[walking->nfiles];
	f->path = strdup(path);
	if (!f->path)
		return FTW_STOP;
	kmod_norm_name(base, stem, f->name);
	walking->nfiles++;
	return FTW_CONTINUE;
}

/* Every .ko under the directories, once; the process-wide walk is locked. */
static void *build_index(void *arg)
{
	static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
	struct kmod *k = arg;
	unsigned i;

	pthread_mutex_lock(&walk_lock);
	walking = k;
	for (i = 0; i < k->ndirs; i++)
		nftw(k->dirs[i], walk_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
	walking = NULL;
	pthread_mutex_unlock(&walk_lock);
	return NULL;
}

/*
 * kmod's own thread, made by kmod_attach before any vCPU runs: it walks
 * the directories (a kernel tree is tens of thousands of files, too many
 * to walk before the guest starts), then opens each .ko asked for.  Both
 * happen on a vCPU thread's behalf (the first module frame is met there),
 * and its sandbox allows neither listing directories nor what libdw does
 * when it first opens a file's DWARF (readlink of /proc/self/fd/N).
 */
static Dwfl_Module *load_now(struct kmod *k, const char *name, const char *path);

static void *service(void *arg)
{
	struct kmod *k = arg;

	build_index(k);
	pthread_mutex_lock(&k->req_lock);
	k->indexed = true;
	pthread_cond_broadcast(&k->req_cv);
	while (!k->stop) {
		if (k->req_state != 1) {
			pthread_cond_wait(&k->req_cv, &k->req_lock);
			continue;
		}
		pthread_mutex_unlock(&k->req_lock);
		k->req_result = load_now(k, k->req_name, k->req_path);
		pthread_mutex_lock(&k->req_lock);
		k->req_state = 2;
		pthread_cond_broadcast(&k->req_cv);
	}
	pthread_mutex_unlock(&k->req_lock);
	return NULL;
}

/* The first lookup waits for the walk. */
static void wait_index(struct kmod *k)
{
	pthread_mutex_lock(&k->req_lock);
	while (k->service_running && !k->indexed)
		pthread_cond_wait(&k->req_cv, &k->req_lock);
	k->indexed = true;
	pthread_mutex_unlock(&k->req_lock);
}

const char *kmod_find_file(struct kmod *k, const char *name)
{
	size_t i;

	wait_index(k);
	/* In the order found: the directories' order is the precedence. */
	for (i = 0; i < k->nfiles; i++)
		if (strcmp(k->files[i].name, name) == 0)
			return k->files[i].path;
	return NULL;
}

static void say(struct kmod *k, const char *fmt, const char *a, const char *b)
{
	char msg[512];

	if (!k->note)
		return;
	snprintf(msg, sizeof(msg), fmt, a, b);
	k->note(k->note_ctx, msg);
}

/* The directories looked in, for a message. */
static void dirs_text(const struct kmod *k, char *out, size_t len)
{
	size_t used = 0;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < k->ndirs && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", k->dirs[i]);
	if (!k->ndirs)
		snprintf(out, len, "(no directory: no --modules, no build tree, no /lib/modules)");
}

/*
 * Report @path to the sym's Dwfl at a made-up base, and open its DWARF
 * now, on kmod's thread; NULL with the reason said.
 */
static Dwfl_Module *load_now(struct kmod *k, const char *name, const char *path)
{
	Dwfl *dwfl = sym_dwfl_lock(k->sym);
	Dwarf_Addr lo, hi, bias;
	Dwfl_Module *m;

	dwfl_report_begin_add(dwfl);
	m = dwfl_report_elf(dwfl, name, path, -1, k->next_base, false);
	if (dwfl_report_end(dwfl, NULL, NULL) != 0)
		m = NULL;
	if (m) {
		dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
		k->next_base = ((hi + KMOD_SYNTH_GAP) & ~(KMOD_SYNTH_GAP - 1)) + KMOD_SYNTH_GAP;
		/* The symbol table and DWARF (relocated) are read now, not on a vCPU. */
		dwfl_module_getsymtab(m);
		dwfl_module_getdwarf(m, &bias);
	}
	sym_dwfl_unlock(k->sym);
	if (!m)
		say(k, "%s: cannot be read as a module (%s); its frames are left out", path,
		    dwfl_errmsg(-1));
	return m;
}

Dwfl_Module *kmod_load_ko(struct kmod *k, const char *name, const char *path)
{
	Dwfl_Module *m;

	if (!k->service_running)
		return load_now(k, name, path);
	pthread_mutex_lock(&k->req_lock);
	k->req_name = name;
	k->req_path = path;
	k->req_state = 1;
	pthread_cond_broadcast(&k->req_cv);
	while (k->req_state != 2)
		pthread_cond_wait(&k->req_cv, &k->req_lock);
	m = k->req_result;
	k->req_state = 0;
	pthread_mutex_unlock(&k->req_lock);
	return m;
}

/* The module called @name, loaded on first use; NULL if there is none. */
Dwfl_Module *kmod_module_named(struct kmod *k, const char *name)
{
	struct ko_loaded *l;
	const char *path;
	char dirs[1024];
	size_t i;

	for (i = 0; i < k->nloaded; i++)
		if (strcmp(k->loaded[i].name, name) == 0)
			return k->loaded[i].mod;
	l = kmod_grow(k->loaded, k->nloaded, &k->caploaded, sizeof(*l), 16);
	if (!l)
		return NULL;
	k->loaded = l;
	l = &k->loaded[k->nloaded++];
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->mod = NULL;
	path = kmod_find_file(k, name);
	if (!path) {
		dirs_text(k, dirs, sizeof(dirs));
		say(k,
		    "no %s.ko under %s: its frames are left out (--modules=DIR names where it is)",
		    name, dirs);
		return NULL;
	}
	l->mod = kmod_load_ko(k, name, path);
	return l->mod;
}

/* @func in @m's symbol table: the function whose size is closest to @hint. */
static int symbol_in(Dwfl_Module *m, const char *func, uint64_t hint, uint64_t *addr,
		     uint64_t *size)
{
	int i, n = dwfl_module_getsymtab(m);
	uint64_t best_diff = UINT64_MAX;
	bool found = false;

	for (i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr a;
		const char *name = dwfl_module_getsym_info(m, i, &s, &a, NULL, NULL, NULL);
		uint64_t diff;

		if (!name || GELF_ST_TYPE(s.st_info) != STT_FUNC || strcmp(name, func) != 0)
			continue;
		diff = hint ? (s.st_size > hint ? s.st_size - hint : hint - s.st_size) : 0;
		if (diff < best_diff || !found) {
			best_diff = diff;
			*addr = a;
			*size = s.st_size;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

int kmod_addr_of(struct sym *sym, const char *module, const char *func, uint64_t size_hint,
		 uint64_t *addr, uint64_t *size)
{
	struct kmod *k = sym_modules(sym);
	char name[KMOD_NAME_MAX];
	uint64_t sz = 0;
	Dwfl_Module *m;
	int rc;

	if (!k)
		return -ENOENT;
	kmod_norm_name(module, strlen(module), name);
	pthread_mutex_lock(&k->lock);
	m = kmod_module_named(k, name);
	/* The symbol table is read under the Dwfl's lock: libdw is not thread-safe. */
	if (m) {
		sym_dwfl_lock(sym);
		rc = symbol_in(m, func, size_hint, addr, &sz);
		sym_dwfl_unlock(sym);
	} else {
		rc = -ENOENT;
	}
	pthread_mutex_unlock(&k->lock);
	if (!rc && size)
		*size = sz;
	return rc;
}

/* --- set-up ------------------------------------------------------------------ */

static void kmod_free(void *p)
{
	struct kmod *k = p;
	size_t i;

	if (!k)
		return;
	if (k->service_running) {
		pthread_mutex_lock(&k->req_lock);
		k->stop = true;
		pthread_cond_broadcast(&k->req_cv);
		pthread_mutex_unlock(&k->req_lock);
		pthread_join(k->service, NULL);
	}
	pthread_mutex_destroy(&k->req_lock);
	pthread_cond_destroy(&k->req_cv);
	kmod_placed_free(k);
	pthread_mutex_destroy(&k->map_lock);
	for (i = 0; i < k->nfiles; i++)
		free(k->files[i].path);
	for (i = 0; i < k->ndirs; i++)
		free(k->dirs[i]);
	free(k->files);
	free(k->loaded);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int add_dir(struct kmod *k, const char *dir)
{
	unsigned i;

	for (i = 0; i < k->ndirs; i++)
		if (strcmp(k->dirs[i], dir) == 0)
			return 0;
	if (k->ndirs == KMOD_DIRS || !is_dir(dir))
		return 0;
	k->dirs[k->ndirs] = strdup(dir);
	if (!k->dirs[k->ndirs])
		return -ENOMEM;
	k->ndirs++;
	return 0;
}

/* The build tree of the vmlinux at @vmlinux, if it is one, or as build-dir names it. */
static int add_tree_dirs(struct kmod *k, const char *vmlinux)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32], tree[PATH_MAX];
	const char *slash = strrchr(vmlinux, '/');
	size_t n;
	FILE *f;
	int rc;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - vmlinux), vmlinux);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	/* A bzImage in its tree: the tree is three levels up. */
	n = strlen(dir);
	if (n > 14 && strcmp(dir + n - 14, "/arch/x86/boot") == 0)
		dir[n - 14] = '\0';
	snprintf(probe, sizeof(probe), "%s/modules.order", dir);
	if (access(probe, R_OK) != 0)
		snprintf(probe, sizeof(probe), "%s/Module.symvers", dir);
	if (access(probe, R_OK) == 0 && (rc = add_dir(k, dir)) != 0)
		return rc;
	snprintf(probe, sizeof(probe), "%s/build-dir", dir);
	f = fopen(probe, "re");
	if (!f)
		return 0;
	n = fread(tree, 1, sizeof(tree) - 1, f);
	fclose(f);
	tree[n] = '\0';
	tree[strcspn(tree, "\r\n")] = '\0';
	return tree[0] ? add_dir(k, tree) : 0;
}

int kmod_release(struct sym *sym, char *out, size_t outlen)
{
	static const char lead[] = "Linux version ";
	uint64_t addr, size;
	Dwarf_Addr bias;
	Elf_Scn *scn = NULL;
	Dwfl_Module *m;
	GElf_Shdr sh;
	Elf *elf;
	int rc = -ENOENT;

	if (sym_addr_of(sym, "linux_banner", 0, &addr, &size) != 0)
		return -ENOENT;
	m = dwfl_addrmodule(sym_dwfl_lock(sym), addr);
	elf = m ? dwfl_module_getelf(m, &bias) : NULL;
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;
		const char *s;
		size_t off, len;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    addr - bias < sh.sh_addr || addr - bias >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		off = addr - bias - sh.sh_addr;
		if (!d || !d->d_buf || off + sizeof(lead) > d->d_size)
			break;
		s = (const char *)d->d_buf + off;
		if (strncmp(s, lead, sizeof(lead) - 1) != 0)
			break;
		s += sizeof(lead) - 1;
		len = strcspn(s, " \n");
		if (s + len > (const char *)d->d_buf + d->d_size || !len || len >= outlen)
			break;
		memcpy(out, s, len);
		out[len] = '\0';
		rc = 0;
		break;
	}
	sym_dwfl_unlock(sym);
	return rc;
}

int kmod_attach(struct sym *sym, const struct kmod_opts *o, char *why, size_t whylen)
{
	struct kmod *k = calloc(1, sizeof(*k));
	char release[128], lib[256];
	sigset_t all, old;
	int rc = 0;

	if (!k) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&k->lock, NULL);
	pthread_mutex_init(&k->map_lock, NULL);
	pthread_mutex_init(&k->req_lock, NULL);
	pthread_cond_init(&k->req_cv, NULL);
	k->sym = sym;
	k->note = o->note;
	k->note_ctx = o->note_ctx;
	k->next_base = KMOD_SYNTH_BASE;
	if (o->dir) {
		struct stat st;

		if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->dir, R_OK | X_OK)) {
			rc = stat(o->dir, &st) != 0 ? -errno
			     : S_ISDIR(st.st_mode)  ? -EACCES
						    : -ENOTDIR;
			snprintf(why, whylen,
				 "--modules=%s: %s; name the directory holding the .ko files",
				 o->dir, strerror(-rc));
			kmod_free(k);
			return rc;
		}
		rc = add_dir(k, o->dir);
	}
	if (!rc)
		rc = add_tree_dirs(k, sym_path(sym));
	if (!rc && kmod_release(sym, release, sizeof(release)) == 0) {
		snprintf(lib, sizeof(lib), "/lib/modules/%s", release);
		rc = add_dir(k, lib);
	}
	if (rc) {
		snprintf(why, whylen, "out of memory");
		kmod_free(k);
		return rc;
	}
	/*
	 * The walker takes no signal: the run's SIGINT and SIGTERM are for the
	 * thread that ends it cleanly, and one delivered here would kill the
	 * process with its default action (a SIGTERM'd run then ended 143,
	 * without its summary).
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	k->service_running = pthread_create(&k->service, NULL, service, k) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!k->service_running)
		build_index(k);
	k->orc_fmt = kmod_vmlinux_orc_format(sym);
	sym_set_modules(sym, k, kmod_free, kmod_guest_to_host);
	return 0;
}

int kmod_list(const char *vmlinux, const char *dir, char ***paths, size_t *n)
{
	struct kmod *k = calloc(1, sizeof(*k));
	char **out = NULL;
	size_t i, j, m = 0;
	int rc = -ENOMEM;

	*paths = NULL;
	*n = 0;
	if (!k)
		return -ENOMEM;
	pthread_mutex_init(&k->lock, NULL);
	pthread_mutex_init(&k->map_lock, NULL);
	pthread_mutex_init(&k->req_lock, NULL);
	pthread_cond_init(&k->req_cv, NULL);
	if ((dir && add_dir(k, dir)) || add_tree_dirs(k, vmlinux))
		goto out;
	build_index(k);
	k->indexed = true;
	if (k->nfiles && !(out = calloc(k->nfiles, sizeof(*out))))
		goto out;
	for (i = 0; i < k->nfiles; i++) {
		for (j = 0; j < i && strcmp(k->files[j].name, k->files[i].name); j++)
			;
		if (j < i)
			continue; /* a module found before wins */
		if (!(out[m] = strdup(k->files[i].path))) {
			kmod_list_free(out, m);
			out = NULL;
			m = 0;
			goto out;
		}
		m++;
	}
	*paths = out;
	*n = m;
	rc = 0;
out:
	kmod_free(k);
	return rc;
}

void kmod_list_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
