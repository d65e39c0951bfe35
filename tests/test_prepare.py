"""data/prepare.py against a file served on 127.0.0.1; never touches the internet."""

import hashlib
import http.server
import importlib.util
import os
import socket
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTENT = b"First line of a small test file.\nSecond line, with a comma.\n" * 50
SHA = hashlib.sha256(CONTENT).hexdigest()
WRONG = "0" * 64


def load_prepare():
    spec = importlib.util.spec_from_file_location("prepare",
                                                  os.path.join(ROOT, "data", "prepare.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


prepare = load_prepare()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    """urllib honours proxy variables; loopback requests must go straight to the server."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def server():
    """Serve CONTENT at /input.txt (404 elsewhere); yields (base_url, list of paths asked)."""
    requests = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            requests.append(self.path)
            if self.path == "/input.txt":
                self.send_response(200)
                self.send_header("Content-Length", str(len(CONTENT)))
                self.end_headers()
                self.wfile.write(CONTENT)
            else:
                self.send_error(404, "Not Found")

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield "http://127.0.0.1:%d" % httpd.server_address[1], requests
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def one_error_line(err):
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err
    return lines[0]


def leftovers(folder):
    """The files a download left beside its output (common.beside's .NAME.XXXX.partial.txt)."""
    return [n for n in os.listdir(folder) if n.endswith(".part") or ".partial" in n]


def test_import_does_nothing(capsys):
    load_prepare()
    assert capsys.readouterr() == ("", "")


def test_download_success(server, tmp_path, capsys):
    url, requests = server
    out = tmp_path / "shakespeare.txt"
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", SHA]) == 0
    assert out.read_bytes() == CONTENT
    assert requests == ["/input.txt"]
    printed = capsys.readouterr()
    assert printed.err == ""
    assert len(printed.out.splitlines()) == 1
    assert str(out) in printed.out and SHA in printed.out and str(len(CONTENT)) in printed.out
    assert leftovers(tmp_path) == []


def test_the_file_gets_the_mode_a_new_file_gets(server, tmp_path):
    """Not mkstemp's 0600, which would keep the file from the user's group: 0666 less the
    umask, as any new file."""
    url, _ = server
    out = tmp_path / "shakespeare.txt"
    umask = os.umask(0o022)
    os.umask(umask)
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", SHA]) == 0
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~umask)


def test_checksum_mismatch_writes_nothing(server, tmp_path, capsys):
    url, _ = server
    out = tmp_path / "shakespeare.txt"
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", WRONG]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "checksum" in line and SHA in line
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_checksum_mismatch_keeps_existing_file(server, tmp_path, capsys):
    url, _ = server
    out = tmp_path / "shakespeare.txt"
    out.write_bytes(b"an older file\n")
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", WRONG]) == 2
    one_error_line(capsys.readouterr().err)
    assert out.read_bytes() == b"an older file\n"
    assert leftovers(tmp_path) == []


def test_wrong_existing_file_is_replaced(server, tmp_path):
    url, requests = server
    out = tmp_path / "shakespeare.txt"
    out.write_bytes(b"truncated")
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", SHA]) == 0
    assert out.read_bytes() == CONTENT
    assert requests == ["/input.txt"]


def test_already_present_makes_no_request(server, tmp_path, capsys):
    url, requests = server
    out = tmp_path / "shakespeare.txt"
    out.write_bytes(CONTENT)
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", SHA]) == 0
    assert requests == []
    assert "already" in capsys.readouterr().out


def test_http_404(server, tmp_path, capsys):
    url, requests = server
    out = tmp_path / "shakespeare.txt"
    assert prepare.main(["--url", url + "/missing.txt", "--out", str(out), "--sha256", SHA]) == 2
    assert "404" in one_error_line(capsys.readouterr().err)
    assert requests == ["/missing.txt"]
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_connection_refused(tmp_path, capsys):
    with socket.socket() as s:          # find a loopback port, then close it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "shakespeare.txt"
    url = "http://127.0.0.1:%d/input.txt" % port
    assert prepare.main(["--url", url, "--out", str(out), "--sha256", SHA]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "could not download" in line and str(out) in line
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_timeout(tmp_path, capsys):
    # a socket that listens but never answers: the connection opens, the reply never comes
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        url = "http://127.0.0.1:%d/input.txt" % s.getsockname()[1]
        out = tmp_path / "shakespeare.txt"
        args = ["--url", url, "--out", str(out), "--sha256", SHA, "--timeout", "0.2"]
        assert prepare.main(args) == 2
    assert "0.2 s" in one_error_line(capsys.readouterr().err)
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_cannot_write(tmp_path, capsys):
    out = tmp_path / "no such folder" / "shakespeare.txt"
    assert prepare.main(["--url", "http://127.0.0.1:9/x", "--out", str(out), "--sha256", SHA]) == 2
    assert "cannot write" in one_error_line(capsys.readouterr().err)


# ---------------------------------------------------------------- bad input, refused first
@pytest.mark.parametrize("value", ["0", "-1", "-1e-3", "nan", "inf", "-inf", "1e10"])
def test_a_timeout_that_is_not_a_positive_finite_number_is_refused_first(value, server, tmp_path,
                                                                       capsys):
    url, requests = server
    out = tmp_path / "shakespeare.txt"
    args = ["--url", url + "/input.txt", "--out", str(out), "--sha256", SHA, f"--timeout={value}"]
    assert prepare.main(args) == 2
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith("error: --timeout must be a number of seconds above 0"), line
    assert "network" not in line and "--url" not in line
    assert requests == [] and os.listdir(tmp_path) == []  # neither the network nor the disk


@pytest.mark.parametrize("value", ["xyz", "0" * 63, "g" * 64, ""])
def test_a_sha256_that_is_not_64_hex_digits_is_refused_first(value, server, tmp_path, capsys):
    url, requests = server
    out = tmp_path / "shakespeare.txt"
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", value]) == 2
    assert "--sha256 must be 64 hexadecimal digits" in one_error_line(capsys.readouterr().err)
    assert requests == [] and not out.exists()


def fifo(tmp_path):
    os.mkfifo(tmp_path / "fifo.txt")
    return tmp_path / "fifo.txt"


def folder(tmp_path):
    (tmp_path / "folder.txt").mkdir()
    return tmp_path / "folder.txt"


def link_to_folder(tmp_path):
    (tmp_path / "link.txt").symlink_to(folder(tmp_path))
    return tmp_path / "link.txt"


@pytest.mark.parametrize("make_out", [fifo, folder, link_to_folder])
def test_an_out_that_is_not_a_regular_file_is_refused_unopened(make_out, server, tmp_path):
    import subprocess
    import sys

    url, requests = server
    out = make_out(tmp_path)
    # a process of its own, with a time limit: opening a FIFO to read it would wait for ever
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "data", "prepare.py"), "--url",
                           url + "/input.txt", "--out", str(out), "--sha256", SHA],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "exists and is not a regular file" in one_error_line(proc.stderr)
    assert requests == [] and leftovers(tmp_path) == []


def test_an_out_under_a_file_is_refused_first(server, tmp_path, capsys):
    url, requests = server
    (tmp_path / "a_file").write_text("x")
    out = tmp_path / "a_file" / "shakespeare.txt"
    assert prepare.main(["--url", url + "/input.txt", "--out", str(out), "--sha256", SHA]) == 2
    assert "which is a file, not a folder" in one_error_line(capsys.readouterr().err)
    assert requests == []


def test_ctrl_c_is_one_line_and_130(monkeypatch, tmp_path, capsys):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(prepare, "download", interrupted)
    out = tmp_path / "shakespeare.txt"
    assert prepare.main(["--out", str(out), "--sha256", SHA]) == 130
    err = capsys.readouterr().err
    assert err == "interrupted: %s was not changed\n" % out and not out.exists()
