"""`check --external`: every external link of the site fetched, a few at a time, with a timeout;
the links that answered are remembered for a week in .cache/papersite/, so a second run asks again
only about the broken and the new."""
from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .findings import Finding

CONCURRENCY = 8
TIMEOUT = 10.0  # seconds per request
KEEP_GOOD = 7 * 24 * 3600  # seconds a link that answered is believed
CACHE_NAME = "external-links.json"
_HEADERS = {"User-Agent": "papersite-check (link checker)"}


def status_of(url: str, timeout: float = TIMEOUT) -> str:
    """'' when the URL answers, else why not. HEAD first; GET where a server refuses HEAD."""
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers=_HEADERS)
        try:
            with urllib.request.urlopen(request, timeout=timeout):
                return ""
        except urllib.error.HTTPError as error:
            if method == "HEAD" and error.code in (403, 405, 501):
                continue
            return f"HTTP {error.code}"
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            return f"unreachable ({reason})"
    return "unreachable"


def external_findings(links: list[tuple[str, str, int]], cache_dir: Path, now: float | None = None,
                      timeout: float = TIMEOUT) -> list[Finding]:
    """`links`: (url, page, line) as the site check found them; each URL is asked about once."""
    now = time.time() if now is None else now
    cache_file = cache_dir / CACHE_NAME
    try:
        known = json.loads(cache_file.read_text(encoding="utf-8"))
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    first: dict[str, tuple[str, int]] = {}
    for url, page, line in links:
        first.setdefault(url, (page, line))
    fresh = {url for url, checked in known.items() if isinstance(checked, (int, float)) and now - checked < KEEP_GOOD}
    asked = sorted(set(first) - fresh)
    with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
        answers = dict(zip(asked, pool.map(lambda url: status_of(url, timeout), asked)))
    kept = {url: checked for url, checked in known.items() if url in fresh}
    kept |= {url: now for url, problem in answers.items() if not problem}
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        temporary = cache_file.with_name(f".{CACHE_NAME}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(kept, indent=0, sort_keys=True), encoding="utf-8")
        os.replace(temporary, cache_file)
    except OSError:
        pass  # a cache that cannot be written costs the next run some requests, nothing else
    return [Finding(*first[url], f"external link {url}: {problem}", "external")
            for url, problem in sorted(answers.items()) if problem]
