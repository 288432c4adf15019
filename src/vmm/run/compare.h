/* compare.h: csan-vmm --compare: the same guest in soft and in hw mode (and sampled, when asked).
 */
#ifndef CSAN_VMM_COMPARE_H
#define CSAN_VMM_COMPARE_H

struct options;
struct elf_guest;

/*
 * compare_run - run @g as @o says (its --scenario, or every listed one
 * for --scenario=all) in each mode of --compare=MODES (soft, then hw,
 * then sample; default soft and hw) with the same seed and timeout, each
 * run printing its reports as usual; then print the comparison table on
 * stdout and, with --compare-json, write it as JSON.  Where data
 * watchpoints do not reach guests (probe_data_watchpoints) says so on
 * stderr and runs soft mode only.  Sample mode is refused before any boot
 * for a guest that is not a Linux kernel with its vmlinux.  Returns the
 * exit status (compare_exit_status; 2 when the comparison could not start).
 */
int compare_run(const struct options *o, struct elf_guest *g);

/*
 * compare_check - what can be said of --compare=MODES before any boot:
 * sampling draws its sites from a Linux kernel's vmlinux, so sample mode
 * is refused for another guest or one without.  Returns 0, or -EINVAL
 * after saying why.
 */
int compare_check(const struct options *o, const struct elf_guest *g);

#endif /* CSAN_VMM_COMPARE_H */
