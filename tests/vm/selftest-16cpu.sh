# selftest-16cpu.sh: the platform selftest on 16 vCPUs: CPUs online,
# timer interrupts on each, a spinlock-protected counter exact.  From 16
# vCPUs on, the MADT's I/O APIC ID no longer fits after the CPUs' (KVM's
# is 4 bits): acpi_ioapic_id() gives 0, written to KVM's I/O APIC too.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=16 --timeout=280
expect_rc 0
expect_out '^csan-guest: 16 CPUs online '
expect_out '^csan-result: scenario=selftest status=pass .*cpus=16( |$)'
