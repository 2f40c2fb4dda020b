"""Walk 71 (summaries), the findings fixed here.

F3: MkDocs' autodoc directives (mkautodoc's ``::: httpx.Client`` with ``:docstring:`` and
``:members: headers cookies ...`` indented under it) were said as a summary sentence.
F5 (its link part): a line that is only a link to an anchor of the page (``[🔼 Back to the
top!](#recipes)``, casey/just's README) was said as a sentence, with a period after it.
F6: a Chinese lead-in ending in a full-width colon ``：`` was kept as a summary's last
sentence, where one ending in ``:`` is made a full stop or left out. F10: code indented
under a list item, no fence (a Codex answer's ``import fs from 'fs';`` under "- Add a
tiny plugin ...:"), was read as prose and said in summaries.

Each test fails on the code before its fix; inputs are modelled on the walk's files
(/tmp/walk71/syn, /tmp/walk71/files), made small."""

from __future__ import annotations

from chunkscope.engine.read.source import DOC_ROLE
from chunkscope.engine.summarize.extractive import ExtractiveSummarizer, split_sentences

DOC = f"{DOC_ROLE}: "


def doc(*paragraphs: str) -> str:
    """A document chunk's text as the markdown reader gives it: a label per paragraph."""
    return "\n".join(DOC + p for p in paragraphs)


def said(text: str) -> str:
    """Everything a summary of `text` says."""
    summary = ExtractiveSummarizer().summarize(text)
    return f"{summary.abstract}\n{summary.summary}"


#: httpx's docs/api.md: a mkautodoc directive per class, then a section with prose.
AUTODOC = doc(
    "## `Client`",
    "::: httpx.Client\n    :docstring:\n    :members: headers cookies params auth request get"
    " head options post put patch delete stream build_request send close",
    "## `Response`",
    "*An HTTP response.*",
    "* `.status_code` - **int**",
)


def test_f3_an_autodoc_directives_options_are_markup() -> None:
    out = said(AUTODOC)
    assert ":docstring:" not in out and ":members:" not in out and "httpx.Client" not in out
    assert "*An HTTP response.*" in out
    assert all(":members:" not in s.text for s in split_sentences(AUTODOC))


def test_f3_a_directive_alone_has_no_summary() -> None:
    only = doc("## `Client`", "::: httpx.Client\n    :docstring:\n    :members: get post")
    assert ExtractiveSummarizer().summarize(only).summary == ""


def test_f3_a_yaml_options_block_of_mkdocstrings_is_markup() -> None:
    text = doc(
        "::: my_package.my_module\n    options:\n      show_source: false",
        "The module parses the configuration files once at start.",
    )
    assert "show_source" not in said(text)


def test_f3_a_containers_paragraph_at_the_margin_is_text() -> None:
    # (VuePress' ``::: danger``: its body is at the margin, the page's text)
    text = doc("::: danger", "Setting `server.cors` to `true` lets any website read your code.")
    assert "lets any website read your code" in said(text)


#: casey/just's README: the last section, ending in a link back to the top.
BACK_TO_TOP = doc(
    "# Recipes",
    "Anyways, I think that's about it for this README.",
    "[🔼 Back to the top!](#recipes)",
)


def test_f5_a_link_to_an_anchor_of_the_page_is_navigation() -> None:
    out = said(BACK_TO_TOP)
    assert "Back to the top" not in out
    assert "about it for this README" in out
    assert all("Back to the top" not in s.text for s in split_sentences(BACK_TO_TOP))


def test_f5_a_line_of_anchor_links_in_bold_is_navigation() -> None:
    text = doc("The build takes four minutes.", "**[⬆ back to top](#table-of-contents)**")
    assert "back to top" not in said(text)


def test_f5_a_sentence_with_an_anchor_link_is_text() -> None:
    text = doc("See [the recipes](#recipes) for more ideas about the justfile.")
    assert "for more ideas about the justfile" in said(text)


#: casey/just's README.中文.md: a lead-in on a full-width colon over a block of code.
ZH_LEAD_IN = doc(
    "# 并行",
    "GNU parallel 可以用来同时运行多个任务：",
    "```just\nparallel:\n  echo task 1 start; sleep 3; echo task 1 done\n```",
)
ZH_IDEAS = doc(
    "# 想法",
    "有了一个容易放置命令的地方，你很可能会想出其他有用的东西。一些关于配方的想法：",
    "- 部署/发布项目",
    "- 在发布模式与调试模式下构建",
)


def test_f6_a_full_width_colon_of_a_lead_in_alone_is_made_a_full_stop() -> None:
    summary = ExtractiveSummarizer().summarize(ZH_LEAD_IN)
    assert summary.summary == "GNU parallel 可以用来同时运行多个任务。"


def test_f6_a_short_lead_in_on_a_full_width_colon_is_left_out() -> None:
    summary = ExtractiveSummarizer().summarize(ZH_IDEAS)
    assert "一些关于配方的想法" not in summary.summary
    assert summary.summary.startswith("有了一个容易放置命令的地方")
    assert not summary.summary.endswith("：")


def test_f6_a_full_width_colon_is_made_a_stop_as_the_ascii_one_is() -> None:
    from chunkscope.engine.summarize.extractive import terminated

    assert terminated("`make` 将会拒绝运行你的测试：") == "`make` 将会拒绝运行你的测试。"
    assert terminated("Run the tests:") == "Run the tests."


def test_f6_a_full_width_colons_stop_is_full_width_after_a_link() -> None:
    from chunkscope.engine.summarize.extractive import terminated

    plug = "你可以用你喜欢的软件包管理器安装它，如 [Plug](https://github.com/junegunn/vim-plug)："
    assert terminated(plug).endswith("vim-plug)。")


def test_f6_a_chinese_lead_in_that_only_introduces_is_a_fragment() -> None:
    from chunkscope.engine.summarize.extractive import is_fragment

    def lead_in(text: str) -> bool:
        return is_fragment(split_sentences(doc(text))[0])

    assert lead_in("与 `just` 搭配得很好的工具包括：")  # ("... include:")
    assert lead_in("并且你的 `justfile` 包含：")  # ("and your justfile contains:")
    assert lead_in("如果你想设置默认的表格显示模式为 `light`：")  # ("if you want ...:")
    assert lead_in("可以在你的 Shell 初始化脚本中加入以下内容：")  # ("add the following:")
    assert not lead_in("GNU parallel 可以用来同时运行多个任务：")
    # ("these arguments" points at no block: a sentence that says something)
    variadic = "以 `+` 为前缀的变长参数接受一个或多个参数，并展开为一个包含这些参数的字符串："
    assert not lead_in(variadic)


def test_f6_a_messages_lead_in_on_a_full_width_colon_opens_its_list() -> None:
    text = (
        "You: 改了什么？\nBot: 我修改了数据库连接池的超时设置，避免长查询被中断。"
        "为此修改了以下配置文件中的多个参数：\n"
        "- `config/db.yaml` 的超时\n- `config/pool.yaml` 的大小\n"
    )
    lead = next(s for s in split_sentences(text) if s.text.endswith("："))
    items = [s for s in split_sentences(text) if s.after == "item"]
    assert items and all(s.lead == lead.position for s in items[:1])


#: A Codex answer (walk 71's codex-old-example.jsonl, line 1213), made small: code
#: indented under a list item whose text ends in a colon, no fence.
PLUGIN = (
    "You: How do I capture Vite dev errors to a log file?\n"
    "Bot: Dev error logging setup\n"
    "- Vite plugin (request/error taps)\n"
    "  - Add a tiny plugin to log requests and forward server-side errors:\n"
    "    import fs from 'fs';\n"
    "    import type { Plugin } from 'vite';\n"
    "\n"
    "    function devLogPlugin(): Plugin {\n"
    "      server.middlewares.use((req, _res, next) => {\n"
    "        next();\n"
    "      });\n"
    "    }\n"
    "- Start the log server with npm run log:server before running vite.\n"
)


def test_f10_code_indented_under_a_list_item_is_no_sentence() -> None:
    texts = [s.text for s in split_sentences(PLUGIN)]
    assert not any("import" in t or "middlewares" in t or "devLogPlugin" in t for t in texts)
    assert "Start the log server with npm run log:server before running vite." in texts
    out = said(PLUGIN)
    assert "import fs" not in out and "middlewares" not in out


def test_f10_statements_on_one_line_open_such_a_block() -> None:
    text = (
        "Bot: Show logs inside Vite\n"
        "- vite.config.ts:\n"
        "  - Add a tiny plugin to log requests and write to a file:\n"
        "    import fs from 'fs'; import path from 'path';\n"
        "    export default defineConfig({\n"
        "      server: { proxy: { '/log': 'http://127.0.0.1:4317' } }\n"
        "    });\n"
    )
    assert not any("import" in s.text or "proxy" in s.text for s in split_sentences(text))


def test_f10_a_chunk_that_starts_in_such_a_block_has_no_summary() -> None:
    text = (
        "Bot:     function devLogPlugin(): Plugin {\n"
        "      const logDir = 'logs';\n"
        "      fs.mkdirSync(logDir, { recursive: true });"
    )
    assert ExtractiveSummarizer().summarize(text).summary == ""


def test_f10_prose_under_a_list_item_is_still_text() -> None:
    text = (
        "Bot: Here is the plan.\n"
        "- Update the cache layer:\n"
        "  the entries now expire after ten minutes, so stale reads are gone.\n"
        "- Run the tests again.\n"
    )
    assert any("expire after ten minutes" in s.text for s in split_sentences(text))
