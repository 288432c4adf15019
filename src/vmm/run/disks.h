/* disks.h: the run's --disk images: opened, announced to the guest, attached. */
#ifndef CSAN_VMM_DISKS_H
#define CSAN_VMM_DISKS_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/dev/virtio_blk.h"
#include "vmm/dev/virtio_mmio.h"
#include "vmm/run/options.h"

struct guest_profile;
struct vm;

/* The disks of one run: disk i is virtio-mmio slot i (/dev/vda, vdb, ... in Linux). */
struct run_disks {
	unsigned n;
	struct virtio_blk_disk disk[OPT_MAX_DISKS];
	struct virtio_mmio_place place[OPT_MAX_DISKS];
};

/*
 * run_disks_check - whether @o's --disk options suit a guest of profile
 * @prof (one that finds virtio-mmio devices on its command line) and,
 * with @try_open, whether each image opens as asked (then closed again:
 * the emulated host's outer csan-vmm checks before it boots anything).
 * Returns 0, or -errno after printing one line saying what to do.
 */
int run_disks_check(const struct options *o, const struct guest_profile *prof, bool try_open);

/*
 * run_disks_open - open @o's disks into @rd and place each in its slot.
 * Returns 0, or -errno after printing why (nothing is left open then).
 */
int run_disks_open(const struct options *o, struct run_disks *rd);

/*
 * run_disks_append - the guest's --append with the words that announce
 * @rd's devices in front (virtio_mmio.device=...), into *@out: malloc'd,
 * or NULL when there is neither.  Returns 0 or -ENOMEM.
 */
int run_disks_append(const struct run_disks *rd, const char *append, char **out);

/*
 * run_disks_attach - give @rd's disks to @vm as virtio-blk devices; the
 * VM owns them from then on (closed at its destroy), whatever is
 * returned.  Returns 0, or -errno with a message in @why.
 */
int run_disks_attach(struct vm *vm, struct run_disks *rd, char *why, size_t whylen);

/* run_disks_close - close what is still open in @rd (not attached). */
void run_disks_close(struct run_disks *rd);

#endif /* CSAN_VMM_DISKS_H */
