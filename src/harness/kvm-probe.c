/* kvm-probe.c: check that /dev/kvm works: API version, VM and vCPU creation, SVM capabilities. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		fprintf(stderr, "kvm-probe: open /dev/kvm: %s\n", strerror(errno));
		return 1;
	}
	int api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	printf("api_version %d\n", api);
	if (api != KVM_API_VERSION) {
		fprintf(stderr, "kvm-probe: API version %d, expected %d\n", api, KVM_API_VERSION);
		return 1;
	}
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		fprintf(stderr, "kvm-probe: KVM_CREATE_VM: %s\n", strerror(errno));
		return 1;
	}
	printf("vm_fd %d\n", vm);
	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0) {
		fprintf(stderr, "kvm-probe: KVM_CREATE_VCPU: %s\n", strerror(errno));
		return 1;
	}
	printf("vcpu_fd %d\n", vcpu);
	/* What the debug-register tests rely on. */
	printf("cap_set_guest_debug %d\n", ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_SET_GUEST_DEBUG));
	printf("cap_debugregs %d\n", ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_DEBUGREGS));
	printf("max_vcpus %d\n", ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS));
	close(vcpu);
	close(vm);
	close(kvm);
	return 0;
}
