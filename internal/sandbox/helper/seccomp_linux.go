//go:build linux && (amd64 || arm64)

package helper

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Seccomp return values and BPF opcodes, spelled out so the filter reads
// like the assembly it is.
const (
	retAllow   = 0x7fff0000 // SECCOMP_RET_ALLOW
	retErrno   = 0x00050000 // SECCOMP_RET_ERRNO | errno
	retKill    = 0x80000000 // SECCOMP_RET_KILL_PROCESS
	bpfLdAbsW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJsetK   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK    = unix.BPF_RET | unix.BPF_K
	offNr      = 0
	offArch    = 4
	offArg0Low = 16 // little-endian low word of args[0]
	x32Bit     = 0x40000000
)

// nsFlags are clone flags that would create namespaces: a nested user
// namespace hands back capabilities inside it.
const nsFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP

// blockedSyscalls fail with EPERM: debugging other processes, io_uring
// (which bypasses seccomp), mounts and namespaces, kernel keyrings and
// other kernel attack surface no build or test needs.
var blockedSyscalls = []uintptr{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_GETFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
}

// program is a tiny BPF assembler: jumps name labels, resolved at the end.
type program struct {
	ins    []unix.SockFilter
	jumps  map[int][2]string // instruction index → true/false labels
	labels map[string]int
}

func (p *program) op(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *program) jump(code uint16, k uint32, jt, jf string) {
	p.jumps[len(p.ins)] = [2]string{jt, jf}
	p.op(code, k)
}

func (p *program) label(name string) { p.labels[name] = len(p.ins) }

func (p *program) resolve() ([]unix.SockFilter, error) {
	for i, j := range p.jumps {
		for n, name := range j {
			off := 0
			if name != "" {
				at, ok := p.labels[name]
				if !ok || at <= i || at-i-1 > 255 {
					return nil, fmt.Errorf("seccomp: bad jump to %q", name)
				}
				off = at - i - 1
			}
			if n == 0 {
				p.ins[i].Jt = uint8(off)
			} else {
				p.ins[i].Jf = uint8(off)
			}
		}
	}
	return p.ins, nil
}

// localFamilies are the socket families a command may open when its
// network is denied. Its network namespace holds nothing but its own
// loopback, so AF_INET and AF_INET6 reach only servers it starts itself
// (a test's httptest server or local database), and AF_NETLINK lets
// libraries list that namespace's interfaces. Every other family is
// refused: AF_VSOCK reaches the hypervisor from a VM, whatever the
// namespace, and AF_PACKET, AF_ALG and the rest are kernel attack
// surface no build or test needs.
var localFamilies = []uint32{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}

// buildFilter assembles the filter; localOnly limits socket() to
// localFamilies.
func buildFilter(localOnly bool) ([]unix.SockFilter, error) {
	p := &program{jumps: map[int][2]string{}, labels: map[string]int{}}
	arch := uint32(unix.AUDIT_ARCH_X86_64)
	if runtime.GOARCH == "arm64" {
		arch = unix.AUDIT_ARCH_AARCH64
	}
	p.op(bpfLdAbsW, offArch)
	p.jump(bpfJeqK, arch, "", "kill")
	p.op(bpfLdAbsW, offNr)
	if runtime.GOARCH == "amd64" {
		p.jump(bpfJgeK, x32Bit, "eperm", "")
	}
	for _, nr := range blockedSyscalls {
		p.jump(bpfJeqK, uint32(nr), "eperm", "")
	}
	// clone3 passes its flags in memory the filter cannot read; ENOSYS
	// makes libc fall back to clone, whose flags it can.
	p.jump(bpfJeqK, unix.SYS_CLONE3, "enosys", "")
	p.jump(bpfJeqK, unix.SYS_CLONE, "clone", "")
	if localOnly {
		p.jump(bpfJeqK, unix.SYS_SOCKET, "socket", "")
	}
	p.op(bpfRetK, retAllow)

	p.label("clone")
	p.op(bpfLdAbsW, offArg0Low)
	p.jump(bpfJsetK, nsFlags, "eperm", "")
	p.op(bpfRetK, retAllow)
	if localOnly {
		p.label("socket")
		p.op(bpfLdAbsW, offArg0Low)
		for _, family := range localFamilies {
			p.jump(bpfJeqK, family, "allow", "")
		}
		p.label("eafnosupport")
		p.op(bpfRetK, retErrno|uint32(unix.EAFNOSUPPORT))
	}
	p.label("eperm")
	p.op(bpfRetK, retErrno|uint32(unix.EPERM))
	p.label("allow")
	p.op(bpfRetK, retAllow)
	p.label("enosys")
	p.op(bpfRetK, retErrno|uint32(unix.ENOSYS))
	p.label("kill")
	p.op(bpfRetK, retKill)
	return p.resolve()
}

// installSeccomp sets no_new_privs and loads the filter on every thread.
func installSeccomp(localOnly bool) error {
	filter, err := buildFilter(localOnly)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("seccomp: load filter: %w", errno)
	}
	return nil
}
