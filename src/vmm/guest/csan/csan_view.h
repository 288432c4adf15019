/* csan_view.h: how the watch engine reads the bundled guest (its control block). */
#ifndef CSAN_VMM_CSAN_VIEW_H
#define CSAN_VMM_CSAN_VIEW_H

struct vm;

/*
 * csan_view_attach - make @vm's watch engine (vm->hw, which must exist)
 * read the guest through the bundled runtime's control block: a trapping
 * vCPU's context (task or interrupt) and whether it had checking
 * disabled.  Call before the vCPUs run.
 */
void csan_view_attach(struct vm *vm);

#endif /* CSAN_VMM_CSAN_VIEW_H */
