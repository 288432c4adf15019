/* test-workload.c: --add's paths, the initramfs csan-vmm builds (read back with libarchive), the status port. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vmm/kvm/bus.h"
#include "vmm/kvm/hooks.h"
#include "vmm/kvm/vm.h"
#include "vmm/workload/workload.h"
#include "check.h"

/* --add's splitting and the guest path's rules. */
static void test_add_parse(void)
{
	static const struct {
		const char *arg, *host, *guest;
	} ok[] = {
		{ "repro", "repro", "/repro" },
		{ "./build/repro", "./build/repro", "/repro" },
		{ "dir/", "dir/", "/dir" },
		{ "dir/.", "dir/.", "/dir" },
		{ "/usr/bin/true:/bin/t", "/usr/bin/true", "/bin/t" },
		{ "x:opt//y/./z/", "x", "/opt/y/z" },
		{ "x:/", "x", "/" },
		{ "x:a..b", "x", "/a..b" },
	};
	static const char *const bad[] = { "", ":/x", "x:", "x:../y", "x:/a/../../b", "x:..",
					   "/", ".", ".." };
	char why[512], *h, *g;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK(workload_add_parse(ok[i].arg, &h, &g, why, sizeof(why)) == 0);
		CHECK(h && !strcmp(h, ok[i].host));
		CHECK(g && !strcmp(g, ok[i].guest));
		if (!g || strcmp(g, ok[i].guest))
			fprintf(stderr, "  %s gave guest %s\n", ok[i].arg, g ? g : "(null)");
		free(h);
		free(g);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CHECK(workload_add_parse(bad[i], &h, &g, why, sizeof(why)) == -EINVAL);
		CHECK(h == NULL && g == NULL);
		CHECK_CONTAINS(why, "--add=");
	}
	CHECK(workload_add_parse("x:a/../b", &h, &g, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "'..'");
}

/* What workload_check says before anything boots. */
static void test_check(const char *dir)
{
	char why[512], missing[PATH_MAX];
	const char *adds[1];
	struct workload_spec w = { .run = "true", .adds = adds, .nadds = 1 };

	snprintf(missing, sizeof(missing), "%s/no-such-file", dir);
	adds[0] = missing;
	CHECK(workload_check(&w, why, sizeof(why)) == -ENOENT);
	CHECK_CONTAINS(why, "--add=");
	CHECK_CONTAINS(why, "no-such-file");
	adds[0] = dir;
	CHECK(workload_check(&w, why, sizeof(why)) == 0);
	w.run = NULL;
	CHECK(workload_check(&w, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "--run");
	w = (struct workload_spec){ .initrd = missing };
	CHECK(workload_check(&w, why, sizeof(why)) == -ENOENT);
	CHECK_CONTAINS(why, "--initrd=");
	w.initrd = dir;
	CHECK(workload_check(&w, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "not a regular file");
}

/* One entry read back from an archive. */
struct seen {
	char path[256];
	mode_t mode;
	dev_t rdev;
	char link[256];
	size_t size;
	char head[64]; /* the first bytes of a file */
};

/* Every entry of the newc archives in @data (several, one after the other). */
static size_t read_back(const uint8_t *data, size_t len, struct seen *out, size_t max)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t n = 0;

	archive_read_support_format_cpio(a);
	/* Several archives in a row, as the kernel reads them. */
	archive_read_set_options(a, "read_concatenated_archives");
	CHECK(archive_read_open_memory(a, data, len) == ARCHIVE_OK);
	while (n < max && archive_read_next_header(a, &e) == ARCHIVE_OK) {
		struct seen *s = &out[n++];
		ssize_t got;

		memset(s, 0, sizeof(*s));
		snprintf(s->path, sizeof(s->path), "/%s", archive_entry_pathname(e));
		s->mode = archive_entry_mode(e);
		s->rdev = archive_entry_rdev(e);
		s->size = (size_t)archive_entry_size(e);
		if (archive_entry_symlink(e))
			snprintf(s->link, sizeof(s->link), "%s", archive_entry_symlink(e));
		got = archive_read_data(a, s->head, sizeof(s->head) - 1);
		CHECK(got >= 0);
	}
	archive_read_free(a);
	return n;
}

static const struct seen *find(const struct seen *v, size_t n, const char *path)
{
	size_t i;
	const struct seen *last = NULL;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].path, path))
			last = &v[i];
	return last;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/*
 * The archive for --run: csan-vmm's part, an --add'ed tree (modes and a
 * symbolic link kept), this test program (dynamically linked: its
 * interpreter and libraries must come along), after a user --initrd.
 */
static void test_build(const char *dir, const char *self)
{
	enum { MAX = 4096 };
	struct seen *v = calloc(MAX, sizeof(*v));
	char tree[PATH_MAX], user[PATH_MAX], add_tree[PATH_MAX + 16], add_self[PATH_MAX + 16],
		why[1024], p[PATH_MAX + 32];
	const char *adds[2] = { add_tree, add_self };
	struct workload_spec w = { .run = "echo hi; exit 3", .adds = adds, .nadds = 2 };
	struct workload_files f = { .init = self, .busybox = WORKLOAD_BUSYBOX };
	const struct seen *s;
	uint8_t *data;
	size_t len, n;

	if (access(WORKLOAD_BUSYBOX, R_OK)) {
		printf("skipping the archive checks: no %s (apt-get install busybox-static)\n",
		       WORKLOAD_BUSYBOX);
		free(v);
		return;
	}
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	CHECK(mkdir(tree, 0750) == 0);
	snprintf(p, sizeof(p), "%s/sub", tree);
	CHECK(mkdir(p, 0700) == 0);
	snprintf(p, sizeof(p), "%s/sub/run.sh", tree);
	write_file(p, "#!/bin/sh\necho tree\n", 0751);
	snprintf(p, sizeof(p), "%s/data.txt", tree);
	write_file(p, "data\n", 0640);
	snprintf(p, sizeof(p), "%s/link", tree);
	CHECK(symlink("data.txt", p) == 0);
	snprintf(add_tree, sizeof(add_tree), "%s:/opt/t", tree);
	snprintf(add_self, sizeof(add_self), "%s:/bin/selftest", self);

	/* A user archive of 5 bytes: ours must start 4-aligned after it. */
	snprintf(user, sizeof(user), "%s/user.img", dir);
	write_file(user, "USER!", 0644);
	w.initrd = user;
	CHECK(workload_initrd_build(&w, &f, &data, &len, why, sizeof(why)) == 0);
	if (!data) {
		fprintf(stderr, "  %s\n", why);
		free(v);
		return;
	}
	CHECK(len > 8 && !memcmp(data, "USER!\0\0\0", 8));
	CHECK(!memcmp(data + 8, "070701", 6)); /* newc's magic, at offset 8 */
	n = read_back(data + 8, len - 8, v, MAX);
	CHECK(n > 10);

	s = find(v, n, CSAN_WL_INIT);
	CHECK(s && S_ISREG(s->mode) && (s->mode & 0111));
	s = find(v, n, CSAN_WL_BUSYBOX);
	CHECK(s && S_ISREG(s->mode) && !memcmp(s->head, "\177ELF", 4));
	s = find(v, n, CSAN_WL_CMD_FILE);
	CHECK(s && !strcmp(s->head, "echo hi; exit 3"));
	s = find(v, n, "/dev/console");
	CHECK(s && S_ISCHR(s->mode) && major(s->rdev) == 5 && minor(s->rdev) == 1);
	s = find(v, n, "/tmp");
	CHECK(s && S_ISDIR(s->mode) && (s->mode & 07777) == 01777);
	CHECK(find(v, n, "/proc") && find(v, n, "/sys"));

	s = find(v, n, "/opt");
	CHECK(s && S_ISDIR(s->mode)); /* the parent, made for /opt/t */
	s = find(v, n, "/opt/t");
	CHECK(s && S_ISDIR(s->mode) && (s->mode & 07777) == 0750);
	s = find(v, n, "/opt/t/sub");
	CHECK(s && S_ISDIR(s->mode) && (s->mode & 07777) == 0700);
	s = find(v, n, "/opt/t/sub/run.sh");
	CHECK(s && S_ISREG(s->mode) && (s->mode & 07777) == 0751 && !strcmp(s->head, "#!/bin/sh\necho tree\n"));
	s = find(v, n, "/opt/t/data.txt");
	CHECK(s && (s->mode & 07777) == 0640 && s->size == 5);
	s = find(v, n, "/opt/t/link");
	CHECK(s && S_ISLNK(s->mode) && !strcmp(s->link, "data.txt"));

	/* This program is dynamically linked: the loader and libc come along. */
	s = find(v, n, "/bin/selftest");
	CHECK(s && S_ISREG(s->mode) && (s->mode & 0111));
	s = find(v, n, "/lib64/ld-linux-x86-64.so.2");
	CHECK(s && S_ISREG(s->mode) && !memcmp(s->head, "\177ELF", 4));
	s = find(v, n, "/lib/x86_64-linux-gnu/libc.so.6");
	CHECK(s && S_ISREG(s->mode) && !memcmp(s->head, "\177ELF", 4));
	/* And a library of a library: libarchive needs libz (Debian's build does). */
	CHECK(find(v, n, "/lib/x86_64-linux-gnu/libarchive.so.13") != NULL);
	CHECK(find(v, n, "/lib/x86_64-linux-gnu/libz.so.1") != NULL);
	free(data);

	/* Without --initrd: our archive alone, from its first byte. */
	w.initrd = NULL;
	CHECK(workload_initrd_build(&w, &f, &data, &len, why, sizeof(why)) == 0);
	CHECK(data && len > 6 && !memcmp(data, "070701", 6));
	free(data);

	/* --initrd alone: its bytes, untouched. */
	w = (struct workload_spec){ .initrd = user };
	CHECK(workload_initrd_build(&w, &f, &data, &len, why, sizeof(why)) == 0);
	CHECK(data && len == 5 && !memcmp(data, "USER!", 5));
	free(data);

	/* Nothing asked: nothing handed over. */
	w = (struct workload_spec){ 0 };
	CHECK(workload_initrd_build(&w, &f, &data, &len, why, sizeof(why)) == 0);
	CHECK(data == NULL && len == 0);

	/*
	 * A dynamic executable whose library is nowhere: this program with
	 * "libc.so.6" renamed in its string table.  One line names both.
	 */
	{
		char bad[PATH_MAX + 16], arg[PATH_MAX + 32];
		const char *one[1] = { arg };
		FILE *in = fopen(self, "rb"), *out;
		char *buf = malloc(64 << 20), *hit;
		size_t got = in && buf ? fread(buf, 1, 64 << 20, in) : 0;

		snprintf(bad, sizeof(bad), "%s/badlib", dir);
		for (hit = buf; got && (hit = memmem(hit, got - (size_t)(hit - buf), "libc.so.6", 9));)
			hit[3] = 'Q';
		out = fopen(bad, "wb");
		CHECK(got > 0 && out && fwrite(buf, 1, got, out) == got);
		if (out)
			fclose(out);
		if (in)
			fclose(in);
		free(buf);
		snprintf(arg, sizeof(arg), "%s:/bad", bad);
		w = (struct workload_spec){ .run = "/bad", .adds = one, .nadds = 1 };
		CHECK(workload_initrd_build(&w, &f, &data, &len, why, sizeof(why)) == -ENOENT);
		CHECK_CONTAINS(why, "badlib needs libQ.so.6");
		CHECK(data == NULL && len == 0);
	}

	/* A busybox that is not there: one line naming it and the package. */
	w = (struct workload_spec){ .run = "true" };
	f.busybox = "/nonexistent/busybox";
	CHECK(workload_initrd_build(&w, &f, &data, &len, why, sizeof(why)) == -ENOENT);
	CHECK_CONTAINS(why, "/nonexistent/busybox");
	CHECK_CONTAINS(why, "busybox-static");
	free(v);
}

static int port_out(const struct bus_range *r, uint16_t port, uint32_t v, unsigned size)
{
	uint8_t data[4];

	memcpy(data, &v, sizeof(data));
	return r->fn.pio(NULL, r->ctx, port, true, data, size, 1);
}

/* The status port: only a whole, well-formed report counts, and only the first. */
static void test_status_port(void)
{
	struct vm_config cfg = { .ncpus = 1 };
	struct vm *vm = vm_new(&cfg);
	const struct bus_range *r;
	char why[256];

	CHECK(vm != NULL);
	if (!vm)
		return;
	CHECK(workload_exit_status(vm) == -1); /* no workload on this VM */
	CHECK(workload_attach(vm, why, sizeof(why)) == 0);
	CHECK(workload_exit_status(vm) == -1); /* not reported yet */
	r = pio_find(&vm->pio, CSAN_WL_PORT);
	CHECK(r != NULL);
	if (r) {
		port_out(r, CSAN_WL_PORT, 3, 4); /* no magic */
		port_out(r, CSAN_WL_PORT + 1, CSAN_WL_MAGIC | 3, 4); /* not at the first port */
		port_out(r, CSAN_WL_PORT, CSAN_WL_MAGIC | 256, 4); /* out of range */
		port_out(r, CSAN_WL_PORT, CSAN_WL_MAGIC | 3, 2);	 /* 2 bytes */
		/* Byte by byte, without the first port, with a gap, or unfinished. */
		port_out(r, CSAN_WL_PORT + 1, 0, 1);
		port_out(r, CSAN_WL_PORT + 2, 0xa7, 1);
		port_out(r, CSAN_WL_PORT + 3, 0xc5, 1);
		port_out(r, CSAN_WL_PORT, 3, 1);
		port_out(r, CSAN_WL_PORT + 2, 0xa7, 1);
		port_out(r, CSAN_WL_PORT + 3, 0xc5, 1);
		port_out(r, CSAN_WL_PORT, 3, 1);
		port_out(r, CSAN_WL_PORT + 1, 0, 1);
		port_out(r, CSAN_WL_PORT + 2, 0xa6, 1);
		port_out(r, CSAN_WL_PORT + 3, 0xc5, 1); /* wrong magic */
		port_out(r, CSAN_WL_PORT, 3, 1);
		port_out(r, CSAN_WL_PORT + 1, 0, 1);
		port_out(r, CSAN_WL_PORT + 2, 0xa7, 1);
		CHECK(workload_exit_status(vm) == -1);
		port_out(r, CSAN_WL_PORT, CSAN_WL_MAGIC | 127, 4);
		CHECK(workload_exit_status(vm) == 127);
		port_out(r, CSAN_WL_PORT, CSAN_WL_MAGIC | 0, 4); /* a second report is ignored */
		CHECK(workload_exit_status(vm) == 127);
	}
	/* /dev/port's way: one outb per port, rising; the status is 42. */
	vm_destroy(vm);
	vm = vm_new(&cfg);
	CHECK(vm && workload_attach(vm, why, sizeof(why)) == 0);
	r = vm ? pio_find(&vm->pio, CSAN_WL_PORT + 3) : NULL;
	CHECK(r != NULL);
	if (r) {
		port_out(r, CSAN_WL_PORT, 42, 1);
		port_out(r, CSAN_WL_PORT + 1, 0, 1);
		port_out(r, CSAN_WL_PORT + 2, 0xa7, 1);
		CHECK(workload_exit_status(vm) == -1);
		port_out(r, CSAN_WL_PORT + 3, 0xc5, 1);
		CHECK(workload_exit_status(vm) == 42);
	}
	if (!vm)
		return;
	/* A second owner of the port is refused, naming both. */
	CHECK(workload_attach(vm, why, sizeof(why)) == -EBUSY);
	CHECK_CONTAINS(why, "workload status");
	vm_destroy(vm);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/test-workload.XXXXXX";
	char self[PATH_MAX], cmd[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc, (void)argv;
	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_add_parse();
	test_check(dir);
	test_build(dir, self);
	test_status_port();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit_status("test-workload");
}
