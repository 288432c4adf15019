/* workload_run.h: --run, --add, --initrd at the top: the initramfs built, CMD's status read. */
#ifndef CSAN_VMM_WORKLOAD_RUN_H
#define CSAN_VMM_WORKLOAD_RUN_H

#include <stddef.h>
#include <stdint.h>

struct options;
struct vm;

/*
 * workload_run_build - the initramfs @o asks for (workload_initrd_build
 * with csan-vmm's init and busybox found), in @data (malloc'd; NULL with
 * @len 0 when there is none).  Says how big it is and how long it took
 * unless --quiet.  Returns 0, or -errno after printing why.
 */
int workload_run_build(const struct options *o, uint8_t **data, size_t *len);

/*
 * workload_run_tempfile - the same, written to a new file in $TMPDIR
 * (/tmp without it) for the emulated host; @path is malloc'd and the
 * caller removes the file.  Returns 0, or -errno after printing why,
 * with nothing left behind.
 */
int workload_run_tempfile(const struct options *o, char **path, unsigned long long *bytes);


#endif /* CSAN_VMM_WORKLOAD_RUN_H */
