"""Kernel costs per program that the floor does not pay: a fresh IPC namespace per child, and the
per-program tmpfs remount (2 umount + 2 mount), at 1 and 16 parallel processes."""
import ctypes, os, sys, time, multiprocessing as mp
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWIPC, CLONE_NEWNS = 0x08000000, 0x00020000
MS_NOSUID, MS_NODEV, MS_PRIVATE, MS_REC = 2, 4, 1 << 18, 1 << 14

def busy():
    with open("/proc/stat") as f:
        v = list(map(int, f.readline().split()[1:]))
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")

def fork_loop(n, unshare_ipc):
    import numpy  # noqa: F401 - a template-sized parent
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            if unshare_ipc and libc.unshare(CLONE_NEWIPC) != 0:
                os._exit(3)
            os._exit(0)
        os.waitpid(pid, 0)

def mount_loop(n, flags):
    assert libc.unshare(CLONE_NEWNS) == 0
    assert libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0
    d = f"/tmp/kcost-{os.getpid()}"
    os.makedirs(d + "/a", exist_ok=True); os.makedirs(d + "/b", exist_ok=True)
    for _ in range(n):
        for sub in (b"/a", b"/b"):
            assert libc.mount(b"tmpfs", d.encode() + sub, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0700,size=1048576") == 0
        for sub in (b"/a", b"/b"):
            assert libc.umount2(d.encode() + sub, flags or 0) == 0

def measure(kind, arg, procs, n):
    target = {"fork": fork_loop, "mount": mount_loop}[kind]
    b0, t0 = busy(), time.perf_counter()
    ps = [mp.Process(target=target, args=(n, arg)) for _ in range(procs)]
    [p.start() for p in ps]; [p.join() for p in ps]
    assert all(p.exitcode == 0 for p in ps), [p.exitcode for p in ps]
    wall, cpu = time.perf_counter() - t0, busy() - b0
    print(f"{kind:5} {str(arg):5} procs={procs:2}: {cpu / (procs * n) * 1e6:7.1f} us machine CPU/op, "
          f"{wall / n * 1e6:7.1f} us wall/op per process", flush=True)

if __name__ == "__main__":
    print(os.uname().release)
    for procs in (1, 16):
        for _ in range(2):
            measure("fork", False, procs, 1000)
            measure("fork", True, procs, 1000)
            measure("mount", 0, procs, 1000)
