/* elf_deps.c: the shared libraries and interpreter a dynamically linked ELF file needs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/workload/elf_deps.h"

/*
 * Where glibc's loader looks last, on Debian (multiarch first).  Its
 * cache (/etc/ld.so.cache) lists the same directories plus what
 * /etc/ld.so.conf.d adds; reading the directories keeps this independent
 * of the cache's undocumented format.
 */
static const char *const default_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/usr/local/lib/x86_64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
	"/usr/local/lib",
};

/* What one ELF file says about its loading. */
struct elf_info {
	int elf_class;	/* ELFCLASS32 or 64 */
	unsigned machine;
	char *interp;	/* PT_INTERP, NULL: none */
	char **needed;	/* DT_NEEDED names */
	size_t nneeded;
	char *rpath;	/* DT_RPATH, NULL: none */
	char *runpath;	/* DT_RUNPATH, NULL: none */
	bool dynamic;
};

static void info_free(struct elf_info *in)
{
	size_t i;

	free(in->interp);
	for (i = 0; i < in->nneeded; i++)
		free(in->needed[i]);
	free(in->needed);
	free(in->rpath);
	free(in->runpath);
	memset(in, 0, sizeof(*in));
}

/* PT_INTERP's string, read from the raw file within its bounds. */
static int read_interp(Elf *e, struct elf_info *in)
{
	size_t n, i, size;
	const char *raw = elf_rawfile(e, &size);
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -EIO;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph))
			return -EIO;
		if (ph.p_type == PT_DYNAMIC)
			in->dynamic = true;
		if (ph.p_type != PT_INTERP)
			continue;
		if (!raw || ph.p_offset >= size || ph.p_filesz > size - ph.p_offset ||
		    !ph.p_filesz || memchr(raw + ph.p_offset, '\0', ph.p_filesz) == NULL)
			return -EIO;
		in->interp = strdup(raw + ph.p_offset);
		if (!in->interp)
			return -ENOMEM;
	}
	return 0;
}

static int add_needed(struct elf_info *in, const char *name)
{
	char **v = realloc(in->needed, (in->nneeded + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	in->needed = v;
	v[in->nneeded] = strdup(name);
	return v[in->nneeded++] ? 0 : -ENOMEM;
}

/* DT_NEEDED, DT_RPATH, DT_RUNPATH from the SHT_DYNAMIC section. */
static int read_dynamic(Elf *e, struct elf_info *in)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *data;
	const char *s;
	size_t i;
	int rc;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			return -EIO;
		for (i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getdyn(data, (int)i, &dyn);
		     i++) {
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
			    dyn.d_tag != DT_RUNPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				return -EIO;
			if (dyn.d_tag == DT_NEEDED)
				rc = add_needed(in, s);
			else if (dyn.d_tag == DT_RPATH)
				rc = (in->rpath = strdup(s)) ? 0 : -ENOMEM;
			else
				rc = (in->runpath = strdup(s)) ? 0 : -ENOMEM;
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * Read @path's loading information into @in.  Returns 1 for an ELF file,
 * 0 for anything else, -EIO for a malformed ELF, -errno when unreadable.
 */
static int elf_info_read(const char *path, struct elf_info *in)
{
	unsigned char magic[SELFMAG];
	GElf_Ehdr eh;
	Elf *e = NULL;
	int fd, rc;

	memset(in, 0, sizeof(*in));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, magic, SELFMAG) != SELFMAG || memcmp(magic, ELFMAG, SELFMAG)) {
		close(fd);
		return 0;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	rc = -EIO;
	if (e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh)) {
		in->elf_class = gelf_getclass(e);
		in->machine = eh.e_machine;
		rc = read_interp(e, in);
		if (!rc && in->dynamic)
			rc = read_dynamic(e, in);
		if (!rc)
			rc = 1;
	}
	if (rc < 0)
		info_free(in);
	elf_end(e);
	close(fd);
	return rc;
}

/* Whether @path is a readable ELF file of @class and @machine. */
static bool fits(const char *path, int elf_class, unsigned machine)
{
	struct elf_info in;
	bool ok;

	if (elf_info_read(path, &in) != 1)
		return false;
	ok = in.elf_class == elf_class && in.machine == machine;
	info_free(&in);
	return ok;
}

/* @dir with $ORIGIN (or ${ORIGIN}) replaced by @origin, into @out. */
static void expand_origin(const char *dir, size_t len, const char *origin, char *out,
			  size_t outlen)
{
	size_t o = 0;

	while (len && o + 1 < outlen) {
		size_t tok = !strncmp(dir, "${ORIGIN}", 9) ? 9 : !strncmp(dir, "$ORIGIN", 7) ? 7 : 0;

		if (tok && tok <= len) {
			o += (size_t)snprintf(out + o, outlen - o, "%s", origin);
			if (o >= outlen)
				o = outlen - 1;
			dir += tok;
			len -= tok;
			continue;
		}
		out[o++] = *dir++;
		len--;
	}
	out[o] = '\0';
}

/* Look @name up in the colon-separated @list; 0 with the path in @out. */
static int search_list(const char *list, const char *name, const char *origin, int elf_class,
		       unsigned machine, char *out, size_t outlen)
{
	char dir[PATH_MAX];
	const char *p = list;

	while (p && *p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		expand_origin(p, len, origin, dir, sizeof(dir));
		if (dir[0] && (size_t)snprintf(out, outlen, "%s/%s", dir, name) < outlen &&
		    fits(out, elf_class, machine))
			return 0;
		p = colon ? colon + 1 : NULL;
	}
	return -ENOENT;
}

static int find_library(const struct elf_info *in, const char *obj, const char *name, char *out,
			size_t outlen)
{
	char origin[PATH_MAX];
	const char *slash = strrchr(obj, '/');
	size_t i;

	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		return fits(out, in->elf_class, in->machine) ? 0 : -ENOENT;
	}
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - obj) : 1,
		 slash ? obj : ".");
	if (!in->runpath && in->rpath &&
	    !search_list(in->rpath, name, origin, in->elf_class, in->machine, out, outlen))
		return 0;
	if (in->runpath &&
	    !search_list(in->runpath, name, origin, in->elf_class, in->machine, out, outlen))
		return 0;
	for (i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++) {
		snprintf(out, outlen, "%s/%s", default_dirs[i], name);
		if (fits(out, in->elf_class, in->machine))
			return 0;
	}
	return -ENOENT;
}

static bool seen(struct elf_deps *d, const char *host)
{
	size_t i;

	for (i = 0; i < d->nseen; i++)
		if (!strcmp(d->seen[i], host))
			return true;
	return false;
}

static int mark_seen(struct elf_deps *d, const char *host)
{
	if (d->nseen == d->capseen) {
		size_t cap = d->capseen ? d->capseen * 2 : 16;
		char **v = realloc(d->seen, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->seen = v;
		d->capseen = cap;
	}
	d->seen[d->nseen] = strdup(host);
	return d->seen[d->nseen++] ? 0 : -ENOMEM;
}

/* Add @host as @guest unless that guest path is there already. */
static int add_dep(struct elf_deps *d, const char *host, const char *guest)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].guest, guest))
			return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct elf_dep *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n].host = strdup(host);
	d->v[d->n].guest = strdup(guest);
	d->n++;
	return d->v[d->n - 1].host && d->v[d->n - 1].guest ? 0 : -ENOMEM;
}

int elf_deps_collect(struct elf_deps *d, const char *path, char *why, size_t whylen)
{
	char lib[PATH_MAX];
	struct elf_info in;
	size_t i;
	int rc;

	memset(&in, 0, sizeof(in));
	if (seen(d, path))
		return 0;
	rc = mark_seen(d, path);
	if (rc)
		goto oom;
	rc = elf_info_read(path, &in);
	if (rc < 0) {
		snprintf(why, whylen, "%s: %s", path,
			 rc == -EIO ? "malformed ELF file (libelf could not read its program "
				      "headers or dynamic section)"
				    : strerror(-rc));
		return rc;
	}
	if (rc == 0)
		return 0;
	rc = 0;
	if (in.interp) {
		if (access(in.interp, R_OK)) {
			snprintf(why, whylen,
				 "%s: its interpreter %s is not on this host; add a static build, "
				 "or --add the interpreter",
				 path, in.interp);
			rc = -ENOENT;
			goto out;
		}
		rc = add_dep(d, in.interp, in.interp);
	}
	for (i = 0; !rc && i < in.nneeded; i++) {
		if (find_library(&in, path, in.needed[i], lib, sizeof(lib))) {
			snprintf(why, whylen,
				 "%s needs %s, which is in none of its RPATH/RUNPATH or the "
				 "standard library directories; --add it at a path the guest's "
				 "loader searches",
				 path, in.needed[i]);
			rc = -ENOENT;
			goto out;
		}
		rc = add_dep(d, lib, lib);
		if (!rc)
			rc = elf_deps_collect(d, lib, why, whylen);
	}
	if (rc == -ENOMEM)
		goto oom;
out:
	info_free(&in);
	return rc;
oom:
	info_free(&in);
	snprintf(why, whylen, "the initramfs: out of memory");
	return -ENOMEM;
}

void elf_deps_free(struct elf_deps *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].host);
		free(d->v[i].guest);
	}
	for (i = 0; i < d->nseen; i++)
		free(d->seen[i]);
	free(d->v);
	free(d->seen);
	memset(d, 0, sizeof(*d));
}
