/* compare.h: csan-vmm --compare: the same guest in soft and in hw mode. */
#ifndef CSAN_VMM_COMPARE_H
#define CSAN_VMM_COMPARE_H

struct options;
struct elf_guest;

/*
 * compare_run - run @g as @o says (its --scenario, or every listed one
 * for --scenario=all) in soft mode and then in hw mode with the same seed
 * and timeout, each run printing its reports as usual; then print the
 * comparison table on stdout and, with --compare-json, write it as JSON.
 * Where data watchpoints do not reach guests (probe_data_watchpoints)
 * says so on stderr and runs soft mode only.  Returns the exit status
 * (compare_exit_status; 2 when the comparison could not start).
 */
int compare_run(const struct options *o, struct elf_guest *g);

#endif /* CSAN_VMM_COMPARE_H */
