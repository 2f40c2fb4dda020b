"""Injection: the recap handed to an agent tool's next session.

`recaps` keeps recaps per session and says what a session start injects,
`hook_settings` merges chunkscope's hooks into a tool's hooks file, and `agents`
holds one module per agent tool (Claude Code, Codex, Gemini CLI).
"""
