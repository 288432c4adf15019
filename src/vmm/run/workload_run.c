/* workload_run.c: --run, --add, --initrd at the top: the initramfs built, CMD's status read. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/base/clock.h"
#include "vmm/base/exit_status.h"
#include "vmm/base/log.h"
#include "vmm/run/guest_path.h"
#include "vmm/run/options.h"
#include "vmm/run/workload_run.h"
#include "vmm/workload/workload.h"

int workload_run_build(const struct options *o, uint8_t **data, size_t *len)
{
	const struct workload_spec *w = &o->workload;
	struct workload_files f = { .busybox = WORKLOAD_BUSYBOX };
	char why[1024];
	char *init = NULL;
	uint64_t t0 = clock_now_ns();
	int rc;

	*data = NULL;
	*len = 0;
	if (w->run && !w->prebuilt) {
		init = guest_path_init(why, sizeof(why));
		if (!init) {
			log_error("--run: %s", why);
			return -ENOENT;
		}
		f.init = init;
	}
	rc = workload_initrd_build(w, &f, data, len, why, sizeof(why));
	free(init);
	if (rc) {
		log_error("%s", why);
		return rc;
	}
	if (w->run && !w->prebuilt && !o->quiet)
		log_error("initramfs for --run: %.1f MiB (%s%zu --add) built in %.0f ms", *len / 1048576.0,
			  w->initrd ? "--initrd, " : "", w->nadds,
			  (double)(clock_now_ns() - t0) / 1e6);
	return 0;
}

int workload_run_tempfile(const struct options *o, char **path, unsigned long long *bytes)
{
	const char *dir = getenv("TMPDIR");
	uint8_t *data;
	size_t len, off = 0;
	ssize_t n;
	int fd, rc;

	*path = NULL;
	rc = workload_run_build(o, &data, &len);
	if (rc)
		return rc;
	if (asprintf(path, "%s/csan-vmm-initrd.XXXXXX", dir && *dir ? dir : "/tmp") < 0) {
		*path = NULL;
		free(data);
		log_error("out of memory");
		return -ENOMEM;
	}
	fd = mkstemp(*path);
	rc = fd < 0 ? -errno : 0;
	while (!rc && off < len) {
		n = write(fd, data + off, len - off);
		if (n < 0)
			rc = -errno;
		else
			off += (size_t)n;
	}
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = -errno;
	free(data);
	if (rc) {
		log_error_errno(-rc, "--host=emulated: cannot write the initramfs to %s (set TMPDIR "
				     "to a directory with room)",
				*path);
		if (fd >= 0)
			unlink(*path);
		free(*path);
		*path = NULL;
		return rc;
	}
	*bytes = len;
	return 0;
}
