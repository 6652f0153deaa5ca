"""Successive one-paper edits, each followed by `build`: time, memory and cache size, build by build,
against Hugo's clean build of the same catalog.

    .venv/bin/python bench/edit_series.py --size 10000 --real [--edits 10] [--kinds abstract,title,authors,frame]
                                          [--folder /dev/shm] [--catalog FOLDER] [--peer minimal|full]
                                          [--sample-every SECONDS]

The catalog comes from bench/synth.py (`--real`: the real ICML 2024 papers, replicated), or is
copied from `--catalog`; the engine is this checkout, copied first. After a clean build, each kind of edit is made `--edits` times in a row,
each to another paper and each followed by one `python build.py build` in a fresh process:

    abstract   a sentence added to the abstract
    title      the title prefixed
    authors    an author added to the list
    frame      a sentence added to the abstract of a paper whose text is one of the map's frame
               (papermap/layout.py: the first 2,000 landmarks), which lays the whole map out again

For each build it prints the wall time, the peak PSS of every process the build started (its
workers, and the detached process that saves the session once the site is written, which the next
build waits for) and of the warm process that made it (papersite/engine/warm.py: every process
working in the catalog's folder), how long that saver ran on after the build returned, and the
size of .cache/papersite/. A build the warm process made runs in it: its CPU time is not the
command's, and is shown as "warm". Hugo (bench/scale.py's minimal peer) builds the same catalog before the clean
build and after each series (`--peer full`: the peer that builds what our site has); ratios are
to the median of those builds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import yaml  # noqa: E402

from cache import engines  # noqa: E402
from rebuild import retitle  # noqa: E402
from scale import PEERS, hugo_site, run_hugo  # noqa: E402
from synth import write_catalog  # noqa: E402

from papersite.source.content import find_content_files, split_front_matter  # noqa: E402

SAMPLE_EVERY = 0.05  # seconds between two samples of the processes' memory (--sample-every; 0: none)
USERS_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def session_pss_mb(session: int, folder: Path | None = None) -> float:
    """PSS of every process of a session (a build started in one of its own, its saver included),
    and of every process working in `folder` (the warm process, and the workers of the build it makes)."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            if int(stat[stat.rindex(")") + 2:].split()[3]) != session and \
                    (folder is None or os.readlink(f"/proc/{name}/cwd") != str(folder)):
                continue
            for line in Path(f"/proc/{name}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
        except (OSError, ValueError):
            continue  # ended meanwhile
    return total / 1024


def session_alive(session: int) -> bool:
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
                if int(stat[stat.rindex(")") + 2:].split()[3]) == session:
                    return True
            except (OSError, ValueError):
                continue
    return False


def build(tree: Path, site: Path, *options: str) -> dict:
    """One `build` in a fresh process: its seconds, the seconds its session's saver ran on after it,
    the peak PSS of all of them, and the cache's size once the saver is done."""
    warm = listening(site)  # then the command hands the build over, and the warm process builds it
    warm_cpu = cpu_seconds(warm)
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(tree / "build.py"), "build", "-q", "--config",
                                str(site / "site.yaml"), *options], env=USERS_ENV, cwd=site, start_new_session=True)
    peak = 0.0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if SAMPLE_EVERY:
            peak = max(peak, session_pss_mb(process.pid, site))
        time.sleep(SAMPLE_EVERY or 0.01)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"build failed with status {process.returncode}")
    cpu = usage.ru_utime + usage.ru_stime  # the build and the workers it waited for, not the saver
    while session_alive(process.pid) or saving(site):  # the saver, detached (then staying warm)
        if SAMPLE_EVERY:
            peak = max(peak, session_pss_mb(process.pid, site))
        time.sleep(SAMPLE_EVERY or 0.05)
    saver = time.perf_counter() - start - seconds
    # made by the warm process: it is still the one listening (a cold build's saver would have taken
    # its place), and it worked meanwhile (a build with nothing to do never asks it)
    warm = warm is not None and warm == listening(site) and cpu_seconds(warm) - warm_cpu > 0.05
    cache = sum(p.stat().st_size for p in (site / ".cache" / "papersite").rglob("*") if p.is_file())
    return {"seconds": seconds, "cpu": None if warm else cpu, "saver": saver, "peak_mb": peak,
            "cache_mb": cache / 1e6}


def cpu_seconds(pid: int | None) -> float:
    """The CPU time process `pid` has used so far (0 if there is none)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def listening(site: Path) -> int | None:
    """The pid of the warm process listening for the next build (papersite/engine/warm.py), if any."""
    import socket
    import struct
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(site / ".cache" / "papersite" / "warm.sock"))
        return struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[0]
    except OSError:
        return None
    finally:
        conn.close()


def saving(site: Path) -> bool:
    """Whether a session is being saved (its saver holds the session's lock)."""
    import fcntl
    try:
        fd = os.open(site / ".cache" / "papersite" / "session.lock", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def edit(path: Path, kind: str, number: int) -> None:
    """One author's edit of one paper's file."""
    if kind == "title":
        retitle(path, f"Edit {number}:")
        return
    front, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
    data = yaml.safe_load(front)
    if kind in ("abstract", "frame"):
        body = body.rstrip("\n") + f" We also report a further result, number {number}.\n"
    elif kind == "authors":
        data["authors"] = [*data.get("authors", []), f"Added Author{number}"]
    else:
        raise SystemExit(f"unknown kind of edit: {kind}")
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body,
                    encoding="utf-8")


def frame_papers(papers: list[Path]) -> list[Path]:
    """The files of the papers whose texts make the map's frame, in the frame's order."""
    from papersite.papermap.layout import in_frame, landmarks
    ids = {}
    for path in papers:
        front, _, _ = split_front_matter(path.read_text(encoding="utf-8"))
        ids[str(yaml.load(front, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["id"])] = path
    return [ids[key] for key in in_frame(landmarks(list(ids)))]


def main(argv: list[str]) -> None:
    global SAMPLE_EVERY
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--real", action="store_true", help="the real ICML 2024 papers, replicated")
    parser.add_argument("--catalog", type=Path, help="copy this catalog instead of making one")
    parser.add_argument("--edits", type=int, default=10, help="edits of each kind, in a row")
    parser.add_argument("--kinds", default="abstract,title,authors")
    parser.add_argument("--peer", choices=sorted(PEERS), default="minimal", help="the Hugo site (see bench/scale.py)")
    parser.add_argument("--folder", type=Path, default=Path("/dev/shm") if os.path.isdir("/dev/shm") else None)
    parser.add_argument("--sample-every", type=float, default=SAMPLE_EVERY,
                        help="seconds between memory samples; 0: none (reading the PSS of processes of a GB "
                             "or more takes a core's time: time a series without, sample another)")
    args = parser.parse_args(argv)
    SAMPLE_EVERY = args.sample_every
    with tempfile.TemporaryDirectory(dir=args.folder) as temp:
        temp = Path(temp)
        tree = engines(temp, None)["this"]  # a copy: editing this checkout meanwhile changes nothing
        site = temp / "site"
        if args.catalog:
            shutil.copytree(args.catalog, site, ignore=shutil.ignore_patterns(".cache", "_site", ".*manifest.json"))
        else:
            write_catalog(args.size, site, 1, real=args.real)
        papers = find_content_files(site / "content")
        hugo_source = hugo_site(site, temp / "hugo", args.peer)
        hugo: list[float] = []
        hugo_cpu: list[float] = []  # Hugo's CPU seconds (its own and its threads')

        def run_peer() -> None:
            before = _children_cpu()
            hugo.append(run_hugo(hugo_source, temp / "hugo-out")["seconds"])
            hugo_cpu.append(_children_cpu() - before)
            shutil.rmtree(temp / "hugo-out")
            log(f"hugo clean build: {hugo[-1]:.2f} s, CPU {hugo_cpu[-1]:.2f} s")

        run_peer()
        rows = [("clean", 0, build(tree, site, "--clean"))]
        log_row(*rows[-1])
        rows.append(("no change", 0, build(tree, site)))
        log_row(*rows[-1])
        for kind in args.kinds.split(","):
            edited = frame_papers(papers) if kind == "frame" else papers
            for number in range(1, args.edits + 1):
                edit(edited[(number * 7919 + len(rows) * 104729) % len(edited)], kind, number)
                rows.append((kind, number, build(tree, site)))
                log_row(*rows[-1])
            run_peer()
        rows.append(("no change", 0, build(tree, site)))
        log_row(*rows[-1])
        peer, peer_cpu = statistics.median(hugo), statistics.median(hugo_cpu)
        print(f"{len(papers):,} papers; Hugo's clean build, median of {len(hugo)}: {peer:.2f} s, CPU {peer_cpu:.2f} s "
              f"({', '.join(f'{h:.2f}' for h in hugo)} s); {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        print("| build | seconds | x Hugo | CPU s | saver after it, s | peak PSS, all processes | cache |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for kind, number, r in rows:
            name = f"{kind} edit {number}" if number else kind
            print(f"| {name} | {r['seconds']:.2f} | {r['seconds'] / peer:.3f} | {cpu(r)} | {r['saver']:.2f} "
                  f"| {r['peak_mb']:.0f} MB | {r['cache_mb']:.0f} MB |")
        for kind in args.kinds.split(","):
            seconds = [r["seconds"] for k, _, r in rows if k == kind]
            peaks = [r["peak_mb"] for k, _, r in rows if k == kind]
            cold = [r["cpu"] for k, _, r in rows if k == kind and r["cpu"] is not None]
            cpu_said = (f"CPU {statistics.median(cold):.2f} s = {statistics.median(cold) / peer_cpu:.3f}x Hugo's "
                        f"({len(cold)} cold)" if cold else "all made warm")
            print(f"{kind} edits: median {statistics.median(seconds):.2f} s = "
                  f"{statistics.median(seconds) / peer:.3f}x Hugo; {cpu_said}; peak PSS first {peaks[0]:.0f} MB, "
                  f"last {peaks[-1]:.0f} MB, highest {max(peaks):.0f} MB")


def cpu(r: dict) -> str:
    return "warm" if r["cpu"] is None else f"{r['cpu']:.2f}"


def _children_cpu() -> float:
    import resource
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def log_row(kind: str, number: int, r: dict) -> None:
    log(f"{kind} {number or ''}: {r['seconds']:.2f} s, CPU {cpu(r)} s (saver {r['saver']:.2f} s), "
        f"peak {r['peak_mb']:.0f} MB, cache {r['cache_mb']:.0f} MB")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
