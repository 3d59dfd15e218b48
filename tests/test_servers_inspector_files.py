"""The inspector serves files only from named directories, as downloads: tried as an attacker would.

A result item names a path the model chose; each test points one at a file and
asserts exactly what the page gets (a link, or why not) and what the file route
answers. Servers run on 127.0.0.1 with ephemeral ports and stop at the end.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")
pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

import requests

from lagent_like import ActionExecutor, BaseAction, tool_api
from lagent_like.cli import main
from lagent_like.tools.ppt import PPT
from lagent_like.web import InspectorServer, InspectorState

FILE_TOKEN_IN_HEADER = (
    "a bearer token is required in the Authorization header: files are sent to the page only, "
    "never to a link that carries the token"
)
WRONG_TOKEN = (
    "the bearer token is not valid: open the URL that lagent-like inspect printed (it ends in ?token=...)"
)


class FilesPointer(BaseAction, register=False):
    """Return the files a test names, as a tool's result items."""

    def __init__(self, *paths: str) -> None:
        super().__init__()
        self.paths = paths

    @tool_api
    def run(self) -> list[dict[str, str]]:
        """Name the files."""
        return [{"type": "image" if p.endswith(".png") else "file", "content": p} for p in self.paths]


def _call(server: InspectorServer) -> list[dict[str, Any]]:
    response = requests.post(
        f"{server.base_url}/api/call",
        json={"name": "FilesPointer", "arguments": {}},
        headers={"Authorization": f"Bearer {server.token}"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def _get(server: InspectorServer, href: str, **headers: str) -> requests.Response:
    sent = {"Authorization": f"Bearer {server.token}", **headers}
    return requests.get(server.base_url + href, headers=sent, timeout=10)


@pytest.fixture
def served(tmp_path: Path) -> Path:
    directory = tmp_path / "served"
    directory.mkdir()
    return directory


def _outside(path: Path, *roots: Path) -> str:
    where = ", ".join(os.path.realpath(r) for r in roots) or "none named"
    return (
        f"not served: {path} is outside the directories the inspector serves files from ({where}); "
        "name its directory with --files-dir (or inspect(files_dirs=...))"
    )


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("page.html", id="html"),
        pytest.param("drawing.svg", id="svg"),
        pytest.param("notes.txt", id="text"),
    ],
)
def test_a_file_outside_the_named_directories_gets_no_link(tmp_path: Path, served: Path, name: str) -> None:
    secret = tmp_path / name
    secret.write_text("<script>alert(document.domain)</script>")
    with InspectorServer(ActionExecutor([FilesPointer(str(secret))]), files_dirs=[str(served)]) as server:
        assert _call(server) == [
            {"type": "file", "content": str(secret), "not_served": _outside(secret, served)}
        ]


def test_without_a_named_directory_no_host_file_is_served() -> None:
    with InspectorServer(ActionExecutor([FilesPointer("/etc/passwd")])) as server:
        items = _call(server)
        assert items == [
            {"type": "file", "content": "/etc/passwd", "not_served": _outside(Path("/etc/passwd"))}
        ]
        refused = _get(server, "/api/files/1")
    assert (refused.status_code, refused.json()) == (
        404,
        {"error": "no result file has the id '1'", "status": 404},
    )


def test_a_link_out_of_a_named_directory_is_not_followed(tmp_path: Path, served: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (served / "escape.txt").symlink_to(secret)
    pointer = FilesPointer(str(served / "escape.txt"))
    with InspectorServer(ActionExecutor([pointer]), files_dirs=[str(served)]) as server:
        [item] = _call(server)
    assert item == {
        "type": "file",
        "content": str(served / "escape.txt"),
        "not_served": _outside(served / "escape.txt", served),
    }


def _swap_for_a_link(report: Path, secret: Path) -> str:
    report.symlink_to(secret)
    return _outside(report, report.parent)


def _swap_for_a_fifo(report: Path, secret: Path) -> str:
    os.mkfifo(report)  # opening it for reading would block until a writer came
    return "the result file report.txt is not a regular file"


def _remove(report: Path, secret: Path) -> str:
    return "the result file report.txt is gone"


@pytest.mark.parametrize(
    ("swap", "status"),
    [
        pytest.param(_swap_for_a_link, 403, id="link-out"),
        pytest.param(_swap_for_a_fifo, 403, id="fifo"),
        pytest.param(_remove, 404, id="removed"),
    ],
)
def test_a_file_swapped_after_the_result_is_refused(
    tmp_path: Path, served: Path, swap: Callable[[Path, Path], str], status: int
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    report = served / "report.txt"
    report.write_text("report")
    with InspectorServer(ActionExecutor([FilesPointer(str(report))]), files_dirs=[str(served)]) as server:
        [item] = _call(server)
        report.unlink()
        message = swap(report, secret)
        refused = _get(server, item["href"])
    assert (refused.status_code, refused.json()) == (status, {"error": message, "status": status})


def test_a_file_inside_a_named_directory_is_sent_as_a_download(served: Path) -> None:
    page = served / "page.html"
    page.write_text("<script>alert(1)</script>")
    with InspectorServer(ActionExecutor([FilesPointer(str(page))]), files_dirs=[str(served)]) as server:
        [item] = _call(server)
        answer = _get(server, item["href"])
    assert item["href"].startswith("/api/files/") and len(item["href"]) == len("/api/files/") + 22
    assert answer.status_code == 200
    assert answer.content == b"<script>alert(1)</script>"
    assert {key: answer.headers[key] for key in DOWNLOAD_HEADERS} == {
        "Content-Type": "application/octet-stream",
        "Content-Disposition": "attachment; filename*=utf-8''page.html",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
        "Content-Length": "25",
    }


DOWNLOAD_HEADERS = [
    "Content-Type",
    "Content-Disposition",
    "X-Content-Type-Options",
    "Content-Security-Policy",
    "Content-Length",
]


@pytest.mark.parametrize(
    ("name", "media"),
    [
        pytest.param("dot.png", "image/png", id="png-as-is"),
        pytest.param("drawing.svg", "application/octet-stream", id="svg-never-as-image"),
        pytest.param("a b é.txt", "application/octet-stream", id="text"),
    ],
)
def test_only_plain_images_keep_their_media_type(served: Path, name: str, media: str) -> None:
    path = served / name
    path.write_bytes(b"\x89PNG fake")
    with InspectorServer(ActionExecutor([FilesPointer(str(path))]), files_dirs=[str(served)]) as server:
        [item] = _call(server)
        answer = _get(server, item["href"])
    assert answer.headers["Content-Type"] == media
    assert answer.headers["Content-Disposition"].startswith("attachment; filename*=utf-8''")


@pytest.mark.parametrize(
    ("query", "headers", "message"),
    [
        pytest.param("?token={token}", {"Authorization": ""}, FILE_TOKEN_IN_HEADER, id="token-in-the-link"),
        pytest.param("", {"Authorization": "Bearer wrong"}, WRONG_TOKEN, id="wrong-token"),
    ],
)
def test_the_file_route_takes_the_token_only_in_the_header(
    served: Path, query: str, headers: dict[str, str], message: str
) -> None:
    path = served / "dot.png"
    path.write_bytes(b"\x89PNG fake")
    with InspectorServer(ActionExecutor([FilesPointer(str(path))]), files_dirs=[str(served)]) as server:
        [item] = _call(server)
        refused = _get(server, item["href"] + query.format(token=server.token), **headers)
    assert (refused.status_code, refused.json()) == (401, {"error": message, "status": 401})


def test_a_tools_files_root_is_served(served: Path) -> None:
    deck = served / "deck.pptx"
    deck.write_bytes(b"PK fake deck")

    class DeckPointer(FilesPointer, register=False):
        files_root = str(served)

    with InspectorServer(ActionExecutor([DeckPointer(str(deck))])) as server:
        response = requests.post(
            f"{server.base_url}/api/call",
            json={"name": "DeckPointer", "arguments": {}},
            headers={"Authorization": f"Bearer {server.token}"},
            timeout=10,
        )
        [item] = response.json()["items"]
        assert _get(server, item["href"]).content == b"PK fake deck"


def test_the_ppt_tool_names_its_root(served: Path) -> None:
    state = InspectorState(ActionExecutor([PPT(root=str(served))]))
    assert state.files.roots() == (os.path.realpath(served),)
    assert PPT().files_root is None


def test_a_files_dir_that_is_not_a_directory_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"the files directory {tmp_path / 'nope'} is not a directory"):
        InspectorServer(ActionExecutor([FilesPointer()]), files_dirs=[str(tmp_path / "nope")])


def test_one_files_dir_not_in_a_list_is_refused_at_once(served: Path) -> None:
    with pytest.raises(TypeError, match=r"^files_dirs takes a list of directories, not one: files_dirs=\['"):
        InspectorServer(ActionExecutor([FilesPointer()]), files_dirs=str(served))


def test_inspect_refuses_a_files_dir_that_is_not_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope"
    assert main(["inspect", "--tools", "PPT", "--files-dir", str(missing)]) == 2
    assert capsys.readouterr().err == f"lagent-like: error: --files-dir {missing}: not a directory\n"
