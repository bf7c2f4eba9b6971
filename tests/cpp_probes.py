"""C++ twins of the isolation probes (``isolation_probes``): one hostile C++ program, compiled once
per pool (the worker caches it), whose first word of input picks the attack.

Each input runs in a fresh process of the same cached binary, so one compile covers every probe.
Both the process backend (``tests/engine/test_cpp.py``) and the Docker backend use it.
"""

from __future__ import annotations

import socket

import pytest

from nemo_code_rl import Limits, Program, Verdict
from nemo_code_rl.engine.languages import CompileSettings, Language

from .engine.conftest import processes_with_uids

# Seconds of compilation: GCC's constexpr evaluator takes each constant's million steps one by one
# (each stays under its limit of 2**25 operations per constant expression). It prints x + 552.
SLOW_TO_COMPILE = r"""
constexpr unsigned long churn(unsigned long seed) {
  unsigned long x = seed;
  for (int r = 0; r < 10; ++r)
    for (unsigned long i = 0; i < 100000; ++i) x = x * 6364136223846793005UL + i;
  return x;
}
constexpr unsigned long A = churn(1), B = churn(2), C = churn(3);
#include <cstdio>
int main() {
  unsigned long x;
  if (std::scanf("%lu", &x) != 1) return 1;
  std::printf("%lu\n", (x + (A ^ B ^ C) % 1000) % 1000);
}
"""
# Far more time than the compile needs, even on a loaded machine: no run of it ends on the limit.
SLOW_SETTINGS = CompileSettings(timeout_s=120)

HOSTILE = r"""
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <iostream>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
extern char **environ;
static const char MARK[] = "MARK_PLACEHOLDER";
static std::vector<unsigned char> needle;  // the target, each byte XOR 0x5a: never plain in memory

static long count_in(const unsigned char *data, size_t size) {
    long hits = 0;
    if (needle.empty() || size < needle.size()) return 0;
    for (size_t i = 0; i + needle.size() <= size; ++i) {
        size_t j = 0;
        while (j < needle.size() && (data[i + j] ^ 0x5a) == needle[j]) ++j;
        hits += j == needle.size();
    }
    return hits;
}
static long count_file(const std::string &path) {
    int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd < 0) return 0;
    std::vector<unsigned char> data;
    unsigned char buffer[1 << 16];
    ssize_t got;
    while ((got = read(fd, buffer, sizeof buffer)) > 0 && data.size() < (64u << 20)) data.insert(data.end(), buffer, buffer + got);
    close(fd);
    return count_in(data.data(), data.size());
}
static long count_tree(const std::string &folder, int depth) {
    DIR *dir = opendir(folder.c_str());
    if (!dir || depth > 8) return dir ? (closedir(dir), 0) : 0;
    long hits = 0;
    while (dirent *entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        std::string path = folder + "/" + name;
        struct stat info;
        if (lstat(path.c_str(), &info) != 0) continue;
        if (S_ISDIR(info.st_mode)) hits += count_tree(path, depth + 1);
        else if (S_ISREG(info.st_mode)) hits += count_file(path);
    }
    closedir(dir);
    return hits;
}
static long count_processes() {  // every process's binary and open files that /proc shows
    long hits = 0;
    DIR *proc = opendir("/proc");
    while (dirent *entry = proc ? readdir(proc) : nullptr) {
        std::string pid = entry->d_name;
        if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(getpid())) continue;
        hits += count_file("/proc/" + pid + "/exe");
        DIR *fds = opendir(("/proc/" + pid + "/fd").c_str());
        while (dirent *fd = fds ? readdir(fds) : nullptr)
            if (fd->d_name[0] != '.') hits += count_file("/proc/" + pid + "/fd/" + fd->d_name);
        if (fds) closedir(fds);
    }
    if (proc) closedir(proc);
    return hits;
}
static long count_own_memory() {
    FILE *maps = fopen("/proc/self/maps", "r");
    int mem = open("/proc/self/mem", O_RDONLY);
    long hits = 0;
    char line[512];
    std::vector<unsigned char> chunk;
    while (maps && mem >= 0 && fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[0] != 'r') continue;
        if (strstr(line, "[vvar]") || strstr(line, "[vsyscall]")) continue;
        for (unsigned long at = start; at < end; at += 1 << 22) {
            size_t size = std::min<unsigned long>(1 << 22, end - at);
            chunk.resize(size);
            ssize_t got = pread(mem, chunk.data(), size, at);
            if (got <= 0) break;
            hits += count_in(chunk.data(), got);
        }
    }
    return hits;
}
static int depth(int n) { volatile char pad[4096]; pad[0] = (char)n; return depth(n + 1) + pad[0]; }

int main() {
    std::string mode;
    std::cin >> mode;
    if (mode == "echo") { std::string word; while (std::cin >> word) std::cout << word << "\n"; }
    else if (mode == "mark") std::cout << MARK << "\n";
    else if (mode == "exit3") return 3;
    else if (mode == "segv") *(volatile int *)nullptr = 1;
    else if (mode == "loop") { volatile unsigned long spin = 0; for (;;) ++spin; }
    else if (mode == "alloc") { std::vector<char *> held; for (;;) { char *block = new char[64 << 20]; memset(block, 1, 64 << 20); held.push_back(block); } }
    else if (mode == "flood") { std::string line(65536, 'x'); for (;;) fwrite(line.data(), 1, line.size(), stdout); }
    else if (mode == "stack") return depth(0);
    else if (mode == "env") {
        int keys = 0;
        for (char **e = environ; *e; ++e) keys += strstr(*e, "TOKEN") || strstr(*e, "KEY") || strstr(*e, "secret");
        long leaks = 0;
        needle.clear();
        for (char c : std::string("secret_value")) needle.push_back(c ^ 0x5a);
        DIR *proc = opendir("/proc");
        while (dirent *entry = proc ? readdir(proc) : nullptr)
            if (isdigit(entry->d_name[0])) leaks += count_file(std::string("/proc/") + entry->d_name + "/environ");
        std::cout << "keys " << keys << " leaks " << leaks << "\n";
    }
    else if (mode == "fork") { while (true) { if (fork() < 0) { sleep(120); } } }
    else if (mode == "net") {
        int port; std::cin >> port;
        int s = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{}; address.sin_family = AF_INET; address.sin_port = htons(port);
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
        if (connect(s, (sockaddr *)&address, sizeof address) == 0) std::cout << "connected\n";
        else std::cout << "refused " << errno << "\n";
    }
    else if (mode == "write") {
        std::string path;
        while (std::cin >> path) {
            FILE *f = fopen(path.c_str(), "w");
            bool ok = f && fputs("x", f) >= 0 && fclose(f) == 0;
            std::cout << path << (ok ? " written" : " denied") << "\n";
        }
        char cwd[256]; std::cout << (getcwd(cwd, sizeof cwd) ? cwd : "?") << "\n";
    }
    else if (mode == "who") {
        FILE *status = fopen("/proc/self/status", "r");
        char line[256];
        std::cout << getuid() << " " << geteuid() << "\n";
        while (status && fgets(line, sizeof line, status))
            if (!strncmp(line, "CapEff", 6) || !strncmp(line, "NoNewPrivs", 10)) std::cout << line;
    }
    else if (mode == "kill") {
        std::cout << "parent " << (kill(getppid(), SIGKILL) == 0 ? "killed" : "denied") << "\n";
        kill(-1, SIGKILL);
        std::cout << "still here\n";
    }
    else if (mode == "fds") {  // what a program holds: its stdin, stdout and stderr, nothing else
        DIR *fds = opendir("/proc/self/fd");
        while (dirent *fd = fds ? readdir(fds) : nullptr)
            if (fd->d_name[0] != '.' && atoi(fd->d_name) != dirfd(fds)) std::cout << fd->d_name << " ";
        std::cout << "\n";
    }
    else if (mode == "stat") {
        std::string path; std::cin >> path;
        struct stat info; std::cout << (stat(path.c_str(), &info) == 0 ? "present" : "absent") << "\n";
    }
    else if (mode == "exe") {
        struct stat info; stat("/proc/self/exe", &info);
        int fd = open("/proc/self/exe", O_WRONLY);
        std::cout << info.st_ino << " " << (fd < 0 ? "read-only" : "writable") << "\n";
    }
    else if (mode == "scan") {  // scan HEX: the needle's bytes XOR 0x5a, in hex
        std::string hex; std::cin >> hex;
        for (size_t i = 0; i + 1 < hex.size(); i += 2) needle.push_back(std::stoi(hex.substr(i, 2), nullptr, 16));
        std::cout << "exe " << count_file("/proc/self/exe") << " memory " << count_own_memory()
                  << " processes " << count_processes() << " files " << count_tree("/tmp", 0) + count_tree("/dev/shm", 0) << "\n";
    }
    return 0;
}
"""


def hostile(marker: str = "none") -> str:
    """The hostile program, with ``marker`` in its binary (a different marker: another program)."""
    return HOSTILE.replace("MARK_PLACEHOLDER", marker)


def scan_input(needle: str) -> str:
    """The ``scan`` input that looks for ``needle`` without the scanner ever holding it plainly."""
    return "scan " + bytes(b ^ 0x5A for b in needle.encode()).hex()


def run_hostile(pool, *inputs: str, marker: str = "none", limits: Limits | None = None):
    return pool.run(Program(hostile(marker), list(inputs), language=Language.CPP, limits=limits))


def assert_cpp_verdicts(pool) -> None:
    """Exit codes, signals, timeouts, memory, output and stack overflow get Python's verdicts
    (the pool's time limit must be short: an endless loop costs it). The memory limit is 256 MiB,
    met after four of ``alloc``'s blocks: filling the process pool's 768 MiB once took more than
    its 2 s time limit on a loaded 2-core machine, and the program timed out first."""
    limits = pool.limits.with_overrides(memory_bytes=256 * 1024**2)
    modes = ("echo 4 2", "exit3", "segv", "loop", "alloc", "flood", "stack", "echo x")
    results = run_hostile(pool, *modes, limits=limits)
    assert [(r.verdict, r.stdout) for r in results[:2]] == [
        (Verdict.OK, "4\n2\n"),
        (Verdict.RUNTIME_ERROR, ""),
    ]
    assert results[1].exit_code == 3
    assert (results[2].verdict, results[2].signal) == (Verdict.SIGNAL, "SIGSEGV")
    assert results[3].verdict is Verdict.TIMEOUT
    assert results[4].verdict is Verdict.MEMORY_LIMIT, results[4]
    assert results[5].verdict is Verdict.OUTPUT_LIMIT and results[5].stdout_dropped > 0
    assert (results[6].verdict, results[6].signal) == (Verdict.SIGNAL, "SIGSEGV"), "stack overflow"
    assert (results[7].verdict, results[7].stdout) == (Verdict.OK, "x\n"), "a fresh process per input"


def assert_cpp_contained(pool, host_file: str) -> None:
    """A C++ program holds only its stdio, reaches no network, writes only in its temp folders,
    cannot signal its parent, runs unprivileged, and its fork bomb leaves nothing behind."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        writes = f"write /etc/escape /usr/escape {host_file} /dev/shm/ok ok.txt"
        results = run_hostile(pool, "fds", "fork", f"net {port}", writes, "kill", "who")
        with pytest.raises(TimeoutError):
            listener.accept()
    assert results[0].stdout == "0 1 2 \n", "no control socket, binary or cache descriptor"
    assert results[1].verdict is Verdict.TIMEOUT
    assert processes_with_uids(pool.sandbox_uids) == []
    assert results[2].stdout.startswith("refused")
    assert results[3].stdout.splitlines() == [
        "/etc/escape denied", "/usr/escape denied", f"{host_file} denied", "/dev/shm/ok written", "ok.txt written", "/tmp"
    ]  # fmt: skip
    assert results[4].stdout == "parent denied\nstill here\n"
    who = results[5].stdout.splitlines()
    uid, euid = who[0].split()
    assert int(uid) in pool.sandbox_uids and uid == euid
    assert [line.split() for line in who[1:]] == [["CapEff:", "0000000000000000"], ["NoNewPrivs:", "1"]]
    assert run_hostile(pool, "echo alive")[0].stdout == "alive\n"
