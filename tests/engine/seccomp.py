"""A minimal seccomp filter for tests: make one syscall fail with EPERM, as restrictive hosts do."""

import ctypes
import errno

UNSHARE_SYSCALL = {"x86_64": 272, "aarch64": 97}

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def deny_syscall(number: int) -> None:
    """Install, for this process and everything it starts, a filter that denies ``number``."""
    program = (_SockFilter * 4)(
        _SockFilter(0x20, 0, 0, 0),  # load the syscall number
        _SockFilter(0x15, 0, 1, number),  # equal to ours?
        _SockFilter(0x06, 0, 0, _SECCOMP_RET_ERRNO | errno.EPERM),
        _SockFilter(0x06, 0, 0, _SECCOMP_RET_ALLOW),
    )
    fprog = _SockFprog(len(program), program)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")
