/* disks.c: the run's --disk images: opened, announced to the guest, attached. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/guest/profile.h"
#include "vmm/run/disks.h"

int run_disks_check(const struct options *o, const struct guest_profile *prof, bool try_open)
{
	struct virtio_blk_disk d;
	char why[512];
	unsigned i;

	if (o->ndisks && !prof->takes_virtio_mmio) {
		log_error("--disk: a %s guest has no virtio driver to see a disk with; --disk is "
			  "for Linux guests (drop it, or boot a Linux kernel)",
			  prof->name);
		return -EINVAL;
	}
	for (i = 0; try_open && i < o->ndisks; i++) {
		if (virtio_blk_open(o->disks[i].path, o->disks[i].ro, &d, why, sizeof(why))) {
			log_error("%s", why);
			return -EINVAL;
		}
		virtio_blk_close(&d);
	}
	return 0;
}

int run_disks_open(const struct options *o, struct run_disks *rd)
{
	char why[512];
	unsigned i;

	memset(rd, 0, sizeof(*rd));
	for (i = 0; i < o->ndisks; i++) {
		/* OPT_MAX_DISKS <= VIRTIO_MMIO_SLOTS, so every disk has a slot. */
		if (virtio_mmio_slot(i, &rd->place[i]) ||
		    virtio_blk_open(o->disks[i].path, o->disks[i].ro, &rd->disk[i], why,
				    sizeof(why))) {
			log_error("%s", why);
			run_disks_close(rd);
			return -EINVAL;
		}
		rd->n++;
	}
	return 0;
}
_Static_assert(OPT_MAX_DISKS <= VIRTIO_MMIO_SLOTS, "each disk needs a virtio-mmio slot");

int run_disks_append(const struct run_disks *rd, const char *append, char **out)
{
	char word[128];
	char *s = append ? strdup(append) : NULL, *t;
	unsigned i = rd->n;

	if (append && !s)
		return -ENOMEM;
	/* Last slot first, each in front: the words read in slot order. */
	while (i--) {
		if (virtio_mmio_announce(&rd->place[i], word, sizeof(word)) ||
		    asprintf(&t, "%s%s%s", word, s ? " " : "", s ? s : "") < 0) {
			free(s);
			return -ENOMEM;
		}
		free(s);
		s = t;
	}
	*out = s;
	return 0;
}

int run_disks_attach(struct vm *vm, struct run_disks *rd, char *why, size_t whylen)
{
	unsigned i;
	int rc = 0;

	for (i = 0; i < rd->n; i++) {
		if (rc)
			virtio_blk_close(&rd->disk[i]);
		else
			rc = virtio_blk_attach(vm, &rd->place[i], &rd->disk[i], why, whylen);
	}
	rd->n = 0;
	return rc;
}

void run_disks_close(struct run_disks *rd)
{
	unsigned i;

	for (i = 0; i < rd->n; i++)
		virtio_blk_close(&rd->disk[i]);
	rd->n = 0;
}
