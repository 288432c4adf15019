/* elf_scenarios.c: read and check the guest's scenario table (.csan.scenarios). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/image/elf_guest.h"
#include "vmm/image/elf_private.h"

/* The section named @want, or NULL (with 0) when the image has none. */
static int find_section(struct elf_check *c, const char *want, Elf_Scn **out, size_t *idx)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;

	*out = NULL;
	if (c->eh.e_shoff == 0 || c->shnum == 0)
		return 0;
	if (elf_getshdrstrndx(c->g->elf, &shstrndx))
		return REJECT(
			c, -ENOEXEC,
			"e_shstrndx: cannot find the section name table (elf_getshdrstrndx: %s)",
			elf_errmsg(-1));
	while ((scn = elf_nextscn(c->g->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return REJECT(c, -ENOEXEC,
				      "section %zu: cannot read its header (gelf_getshdr: %s)",
				      elf_ndxscn(scn), elf_errmsg(-1));
		name = elf_strptr(c->g->elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, want) == 0) {
			*out = scn;
			*idx = elf_ndxscn(scn);
			return 0;
		}
	}
	return 0;
}

/*
 * The NUL-terminated string at guest virtual address @addr, which must lie
 * in the file bytes of a PT_LOAD segment: bss reads as zeros at run time,
 * but a name there would be empty.  Returns 0, -ENOENT when no segment
 * holds @addr, -E2BIG when no NUL ends the string inside its segment.
 */
static int guest_string(const struct elf_check *c, uint64_t addr, const char **str, size_t *len)
{
	size_t i;

	for (i = 0; i < c->g->nsegs; i++) {
		const struct elf_segment *s = &c->g->segs[i];
		const char *p, *nul;
		uint64_t left;

		if (addr < s->vaddr || addr - s->vaddr >= s->filesz)
			continue;
		/* offset + filesz <= file size was checked with the program header. */
		p = (const char *)c->raw + s->offset + (addr - s->vaddr);
		left = s->filesz - (addr - s->vaddr);
		nul = memchr(p, '\0', left);
		if (!nul)
			return -E2BIG;
		*str = p;
		*len = (size_t)(nul - p);
		return 0;
	}
	return -ENOENT;
}

static int scenario_string(struct elf_check *c, size_t i, const char *field, uint64_t addr,
			   const char **str, size_t *len)
{
	int err = guest_string(c, addr, str, len);

	if (err == -ENOENT)
		return REJECT(c, -ENOEXEC,
			      "%s[%zu]: %s 0x%llx is not in the file bytes of any PT_LOAD segment",
			      CSAN_SCENARIO_SECTION, i, field, (unsigned long long)addr);
	if (err)
		return REJECT(c, -ENOEXEC,
			      "%s[%zu]: %s at 0x%llx has no NUL before the end of its segment",
			      CSAN_SCENARIO_SECTION, i, field, (unsigned long long)addr);
	return 0;
}

/* Names reach command lines and file names, so they are kept plain. */
static int check_name(struct elf_check *c, size_t i, const char *name, size_t len)
{
	size_t k;

	if (len == 0)
		return REJECT(c, -ENOEXEC, "%s[%zu]: name is empty", CSAN_SCENARIO_SECTION, i);
	if (len > CSAN_SCENARIO_NAME_MAX)
		return REJECT(c, -ENOEXEC,
			      "%s[%zu]: name \"%.*s...\" is %zu characters, more than "
			      "CSAN_SCENARIO_NAME_MAX (%d)",
			      CSAN_SCENARIO_SECTION, i, 16, name, len, CSAN_SCENARIO_NAME_MAX);
	for (k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)name[k];

		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')
			continue;
		return REJECT(c, -ENOEXEC,
			      "%s[%zu]: name \"%.*s\" has byte 0x%02x at position %zu: names use "
			      "[a-z0-9-] only",
			      CSAN_SCENARIO_SECTION, i, (int)k, name, ch, k);
	}
	return 0;
}

static int take_scenario(struct elf_check *c, size_t i, const struct csan_scenario_desc *d,
			 struct elf_scenario *out)
{
	const char *str;
	size_t len, k;
	int err;

	err = scenario_string(c, i, "name", d->name, &str, &len);
	if (!err)
		err = check_name(c, i, str, len);
	if (err)
		return err;
	memcpy(out->name, str, len);
	out->name[len] = '\0';
	err = scenario_string(c, i, "summary", d->summary, &str, &len);
	if (err)
		return err;
	/* The summary is only shown: long ones are cut, control bytes masked. */
	if (len > sizeof(out->summary) - 1)
		len = sizeof(out->summary) - 1;
	for (k = 0; k < len; k++)
		out->summary[k] = isprint((unsigned char)str[k]) ? str[k] : '?';
	out->summary[len] = '\0';
	if (!elf_in_code(c->g, d->run, true))
		return REJECT(c, -ENOEXEC,
			      "%s[%zu] (%s): run 0x%llx is not in the file bytes of any executable "
			      "(PF_X) PT_LOAD segment",
			      CSAN_SCENARIO_SECTION, i, out->name, (unsigned long long)d->run);
	out->run = d->run;
	out->flags = d->flags;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct elf_scenario *x = *(const struct elf_scenario *const *)a;
	const struct elf_scenario *y = *(const struct elf_scenario *const *)b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x > y) - (x < y);
}

/* Sorting pointers keeps the table order for listing and finds duplicates in n log n. */
static int check_unique(struct elf_check *c)
{
	const struct elf_scenario *s = c->g->scenarios, **by;
	size_t i, n = c->g->nscenarios;
	int err = 0;

	by = malloc(n * sizeof(*by));
	if (!by)
		return REJECT(c, -ENOMEM, "out of memory for %zu scenarios", n);
	for (i = 0; i < n; i++)
		by[i] = &s[i];
	qsort(by, n, sizeof(*by), by_name);
	/* Equal names sort by table position, so by[i - 1] is the earlier entry. */
	for (i = 1; i < n && !err; i++)
		if (strcmp(by[i - 1]->name, by[i]->name) == 0)
			err = REJECT(c, -ENOEXEC,
				     "%s[%zu] and [%zu]: duplicate name \"%s\": scenario names "
				     "must be unique",
				     CSAN_SCENARIO_SECTION, (size_t)(by[i - 1] - s),
				     (size_t)(by[i] - s), by[i]->name);
	free(by);
	return err;
}

int elf_scenarios_read(struct elf_check *c)
{
	const size_t dsz = sizeof(struct csan_scenario_desc);
	struct csan_scenario_desc d;
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t i, n, idx = 0;
	int err;

	err = find_section(c, CSAN_SCENARIO_SECTION, &scn, &idx);
	if (err || !scn)
		return err;
	if (!gelf_getshdr(scn, &sh))
		return REJECT(c, -ENOEXEC,
			      "section %zu (%s): cannot read its header (gelf_getshdr: %s)", idx,
			      CSAN_SCENARIO_SECTION, elf_errmsg(-1));
	if (sh.sh_type == SHT_NOBITS)
		return REJECT(c, -ENOEXEC,
			      "section %zu (%s): sh_type is SHT_NOBITS, so the table has no bytes "
			      "in the file",
			      idx, CSAN_SCENARIO_SECTION);
	if (!elf_in_bounds(sh.sh_offset, sh.sh_size, c->size))
		return REJECT(c, -ENOEXEC,
			      "section %zu (%s): sh_offset+sh_size (0x%llx + 0x%llx) is past the "
			      "end of the file (0x%llx bytes): the file is truncated",
			      idx, CSAN_SCENARIO_SECTION, (unsigned long long)sh.sh_offset,
			      (unsigned long long)sh.sh_size, (unsigned long long)c->size);
	if (sh.sh_size % dsz)
		return REJECT(
			c, -ENOEXEC,
			"section %zu (%s): sh_size 0x%llx is not a multiple of %zu (sizeof(struct "
			"csan_scenario_desc)): rebuild the guest from the same tree",
			idx, CSAN_SCENARIO_SECTION, (unsigned long long)sh.sh_size, dsz);
	n = sh.sh_size / dsz;
	if (n == 0)
		return 0;
	c->g->scenarios = calloc(n, sizeof(*c->g->scenarios));
	if (!c->g->scenarios)
		return REJECT(c, -ENOMEM, "out of memory for %zu scenarios", n);
	for (i = 0; i < n; i++) {
		memcpy(&d, c->raw + sh.sh_offset + i * dsz, dsz);
		err = take_scenario(c, i, &d, &c->g->scenarios[i]);
		if (err)
			return err;
		c->g->nscenarios++;
	}
	return check_unique(c);
}
