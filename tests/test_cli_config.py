"""The config file's [embedder] / [summarizer] sections reach the command line, keys included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.tui.cli import main
from tests.fakeserver import FakeOpenAIServer

KEY = "sk-config-PLANTED-0123456789"


def _log(tmp_path: Path) -> Path:
    lines = []
    for i in range(12):
        topic = "sourdough starter hydration" if i < 6 else "kubernetes ingress routing"
        lines.append(
            json.dumps(
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"Paragraph {i} about {topic}, long enough to stand alone "
                    f"as a chunk of its own without compaction merging it away.",
                    "timestamp": f"2026-02-13T10:{i:02d}:00",
                }
            )
        )
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _config(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "config.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("CHUNKSCOPE_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("CHUNKSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_config_embedder_and_key_are_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(dim=16) as server:
        _config(
            tmp_path,
            f'[embedder]\nname = "openai"\nmodel = "nomic-embed-text"\n'
            f'base_url = "{server.base_url}"\napi_key = "{KEY}"\n',
            monkeypatch,
        )
        assert main(["chunk", str(_log(tmp_path)), "--embed", "--format", "json"]) == 0
        out, err = capsys.readouterr()
        requests = server.requests_to("/embeddings")
    assert requests, "the configured endpoint was not called"
    assert requests[0].headers.get("authorization") == f"Bearer {KEY}"
    assert requests[0].body["model"] == "nomic-embed-text"
    assert json.loads(out)["params"]["embedder"] == "openai:nomic-embed-text"
    assert KEY not in out and KEY not in err


def test_flag_overrides_config_backend_and_drops_its_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(dim=16) as server:
        _config(
            tmp_path,
            f'[embedder]\nname = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n',
            monkeypatch,
        )
        args = ["chunk", str(_log(tmp_path)), "--embed", "--embedder", "lexical"]
        assert main([*args, "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert not server.requests_to("/embeddings")
    assert doc["params"]["embedder"] == "lexical"


def test_config_summarizer_is_used_by_recap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = "ABSTRACT: I tuned the starter.\nSUMMARY: I fed the starter. I changed the routing."
    with FakeOpenAIServer(dim=16, chat_reply=lambda body: reply) as server:
        _config(
            tmp_path,
            f'[summarizer]\nname = "llm"\nmodel = "qwen"\nbase_url = "{server.base_url}"\n'
            f'api_key = "{KEY}"\n',
            monkeypatch,
        )
        assert main(["recap", str(_log(tmp_path)), "--format", "json"]) == 0
        out, err = capsys.readouterr()
        chats = server.requests_to("/chat/completions")
    assert chats and all(r.headers.get("authorization") == f"Bearer {KEY}" for r in chats)
    assert chats[0].body["model"] == "qwen"
    assert "I fed the starter." in json.loads(out)["recap"]
    assert KEY not in out and KEY not in err


def test_broken_config_is_one_line_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(tmp_path, "[embedder\nname = 1\n", monkeypatch)
    assert main(["chunk", str(_log(tmp_path)), "--embed"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chunkscope: ") and err.count("\n") == 1
    assert "config.toml" in err
