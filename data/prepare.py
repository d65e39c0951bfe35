#!/usr/bin/env python3
"""Download tiny shakespeare, to compare against the lecture's numbers.

    python data/prepare.py            # writes data/tinyshakespeare.txt (1,115,394 bytes)

The file is checked against a known sha256 before it is put in place, and it is never
committed (data/tinyshakespeare.txt is git-ignored). Every model in this repository trains
on data/tinyplays.txt by default; this file is only for comparing with the lecture.
Standard library only. Every failure is one line on stderr, "error: what went wrong: what to
do", and exit status 2, as in the tools; Ctrl-C is one line and 130.
"""

import hashlib
import http.client
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))  # the tools' command line
from common import (ArgumentParser, UserError, beside, check_output, command,  # noqa: E402
                    one_line)
from common import TINY_SHAKESPEARE_SHA256 as SHA256  # noqa: E402

URL = "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
SIZE = 1_115_394
OUT = os.path.join(HERE, "tinyshakespeare.txt")
CHUNK = 1 << 16
MAX_TIMEOUT = 86_400  # a day; far above it, the socket's timeout overflows


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def download(url, out, sha256, timeout):
    """Fetch url into a new file beside out (with the mode any new file gets, as beside makes
    it), check it, then move it into place."""
    by_hand = "or download the file by hand and place it at %s" % out
    folder = os.path.dirname(os.path.abspath(out))
    try:
        tmp = beside(Path(os.path.abspath(out)))
    except OSError as e:
        raise UserError("cannot write to %s (%s): check that the folder exists and is "
                        "writable, or choose another place with --out"
                        % (folder, one_line(e.strerror or e)))
    try:
        h, size = hashlib.sha256(), 0
        try:
            with open(tmp, "wb") as f, urllib.request.urlopen(url, timeout=timeout) as r:
                for block in iter(lambda: r.read(CHUNK), b""):
                    f.write(block)
                    h.update(block)
                    size += len(block)
        except urllib.error.HTTPError as e:
            raise UserError("could not download %s (HTTP %d %s): check the URL, %s"
                            % (url, e.code, one_line(e.reason), by_hand))
        except ValueError as e:
            raise UserError("cannot download %s (%s): check --url" % (url, one_line(e)))
        except (TimeoutError, ConnectionError, urllib.error.URLError,
                http.client.HTTPException) as e:
            reason = e.reason if isinstance(e, urllib.error.URLError) else e
            if isinstance(reason, TimeoutError):
                reason = "no answer within %g s" % timeout
            raise UserError("could not download %s (%s): check your network connection, %s"
                            % (url, one_line(reason) or type(reason).__name__, by_hand))
        except OSError as e:
            # the network errors are caught above, so this is the disk (full, read-only)
            raise UserError("cannot write to %s (%s): check the free space and that the "
                            "folder is writable, or choose another place with --out"
                            % (folder, one_line(e.strerror or e)))
        got = h.hexdigest()
        if got != sha256:
            expected = ("sha256 %s (%d bytes)" % (sha256, SIZE) if sha256 == SHA256
                        else "sha256 %s" % sha256)
            kept = ("%s was left unchanged" % out if os.path.exists(out)
                    else "nothing was written")
            raise UserError("checksum mismatch for %s: expected %s, got %s (%d bytes); the "
                            "download was discarded and %s: check --url, %s"
                            % (url, expected, got, size, kept, by_hand))
        try:
            os.replace(tmp, out)
        except OSError as e:
            raise UserError("cannot write %s (%s): check that it is writable, or choose "
                            "another place with --out" % (out, one_line(e.strerror or e)))
        return size, got
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


@command
def main(argv=None):
    ap = ArgumentParser(__file__, __doc__)
    ap.add_argument("--url", default=URL, help="where to download from (default: %(default)s)")
    ap.add_argument("--out", default=OUT, help="where to save it (default: %(default)s)")
    ap.add_argument("--sha256", default=SHA256,
                    help="expected sha256 of the file (default: the known tiny shakespeare)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds to wait for the server (default: %(default)s)")
    args = ap.parse_args(argv)
    # checked before the network or the disk is touched, so that neither gets the blame
    if not 0 < args.timeout <= MAX_TIMEOUT:  # nan fails too
        raise UserError("--timeout must be a number of seconds above 0 and at most %d, got %s: "
                        "pass, for example, --timeout 30" % (MAX_TIMEOUT, args.timeout))
    sha256 = args.sha256.lower()
    if len(sha256) != 64 or set(sha256) - set("0123456789abcdef"):
        raise UserError("--sha256 must be 64 hexadecimal digits, got %r: leave it out for tiny "
                        "shakespeare's" % args.sha256)
    check_output(args.out, "--out")  # a FIFO is refused here, unopened: reading it would hang
    try:
        if os.path.exists(args.out):
            try:
                have = sha256_of(args.out)
            except OSError as e:
                raise UserError("cannot read %s (%s): remove it or choose another place with "
                                "--out" % (args.out, one_line(e.strerror or e)))
            if have == sha256:
                print("%s is already there (%d bytes, sha256 %s); nothing to do"
                      % (args.out, os.path.getsize(args.out), have))
                return 0
        size, got = download(args.url, args.out, sha256, args.timeout)
    except KeyboardInterrupt:
        raise KeyboardInterrupt("%s was not changed" % args.out) from None
    print("saved %s (%d bytes, sha256 %s)" % (args.out, size, got))
    return 0


if __name__ == "__main__":
    sys.exit(main())
