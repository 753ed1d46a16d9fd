package importer

// The tools of imported events: one vocabulary for every format, so that
// `afr query --tool shell` finds the shell commands of a SWE-agent run and
// of an OpenHands stream alike. An imported event's tool (the envelope's)
// is one of these names; the name the source gave the tool (SWE-agent's
// command word or function, OpenHands' function or action) is kept beside
// it, in ext.import.tool. docs/IMPORT.md lists the mapping, with Claude
// Code's (agentTools) and Codex CLI's (cxTools) tool names.
const (
	// ToolShell runs a command or code in the agent's sandbox: bash and any
	// command SWE-agent passes to its shell (python, curl, tshark, …),
	// OpenHands' execute_bash and execute_ipython_cell, Claude Code's Bash,
	// Codex CLI's shell tools.
	ToolShell = "shell"
	// ToolFileRead shows a file or a directory: SWE-agent's open, goto,
	// scroll_up/down, cat/head/tail and str_replace_editor view, OpenHands'
	// read, Claude Code's Read.
	ToolFileRead = "file_read"
	// ToolFileSearch looks for files or for text in them: SWE-agent's
	// find_file, search_file, search_dir, Claude Code's Grep, Glob, LS.
	ToolFileSearch = "file_search"
	// ToolFileEdit writes a file: SWE-agent's edit, create, insert, append,
	// str_replace_editor's other commands, OpenHands' edit and write,
	// Claude Code's Edit and Write, Codex CLI's apply_patch.
	ToolFileEdit = "file_edit"
	// ToolBrowse drives a web browser or fetches the web (OpenHands' browse
	// actions, Claude Code's WebFetch and WebSearch, Codex's web search).
	ToolBrowse = "browse"
	// ToolSubmit ends the run with its result: SWE-agent's submit and exit,
	// OpenHands' finish.
	ToolSubmit = "submit"
	// ToolOther is an action of a name this vocabulary has no entry for
	// (OpenHands' think, delegate, recall, …); its name is in
	// ext.import.tool.
	ToolOther = "other"
	// ToolMessage is text, not an action: the task, the system prompt, what
	// the model or the user said.
	ToolMessage = "message"
	// ToolSubmission is the final event of a SWE-agent run: its submission
	// (the patch), exit status and cost, from the file's "info".
	ToolSubmission = "submission"
)

// categoryOfTool is the category (Categories) of each tool that is an
// action; ToolMessage and ToolSubmission are none.
var categoryOfTool = map[string]string{
	ToolShell: "shell", ToolFileRead: "read", ToolFileSearch: "read", ToolFileEdit: "edit",
	ToolBrowse: "other", ToolSubmit: "other", ToolOther: "other",
}

// sweTools names the tool of SWE-agent's own commands and functions; any
// other command word is one its shell runs (ToolShell).
var sweTools = map[string]string{
	"edit": ToolFileEdit, "create": ToolFileEdit, "write": ToolFileEdit, "insert": ToolFileEdit, "append": ToolFileEdit,
	"open": ToolFileRead, "goto": ToolFileRead, "scroll_up": ToolFileRead, "scroll_down": ToolFileRead,
	"cat": ToolFileRead, "head": ToolFileRead, "tail": ToolFileRead,
	"find_file": ToolFileSearch, "search_file": ToolFileSearch, "search_dir": ToolFileSearch,
	"submit": ToolSubmit, "exit": ToolSubmit,
}

// ohTools names the tool of OpenHands' action types.
var ohTools = map[string]string{
	"run": ToolShell, "run_ipython": ToolShell,
	"read": ToolFileRead, "edit": ToolFileEdit, "write": ToolFileEdit,
	"browse": ToolBrowse, "browse_interactive": ToolBrowse,
	"finish": ToolSubmit,
}

// agentTools names the tool of coding-agent CLIs' own tools: Claude Code's
// (its transcripts, `afr import claude-code`, and its hooks, `afr hook`),
// then Gemini CLI's (its hooks).
var agentTools = map[string]string{
	"Bash": ToolShell, "Read": ToolFileRead, "Grep": ToolFileSearch, "Glob": ToolFileSearch, "LS": ToolFileSearch,
	"Write": ToolFileEdit, "Edit": ToolFileEdit, "MultiEdit": ToolFileEdit, "NotebookEdit": ToolFileEdit,
	"WebFetch": ToolBrowse, "WebSearch": ToolBrowse,

	"run_shell_command": ToolShell, "read_file": ToolFileRead, "read_many_files": ToolFileRead,
	"glob": ToolFileSearch, "search_file_content": ToolFileSearch, "list_directory": ToolFileSearch,
	"write_file": ToolFileEdit, "replace": ToolFileEdit,
	"web_fetch": ToolBrowse, "google_web_search": ToolBrowse,
}

// AgentTool is the vocabulary's tool for the name a coding-agent CLI
// (Claude Code, Gemini CLI) gives one of its own tools, and whether the
// vocabulary has one: an MCP tool (mcp__server__tool), say, has none.
func AgentTool(name string) (string, bool) {
	t, ok := agentTools[name]
	return t, ok
}

// cxTools names the tool of Codex CLI's tools: its shell tools (shell and
// container.exec with a command list, shell_command with a command line,
// exec_command and write_stdin of its unified exec, the local_shell call),
// apply_patch (a function or a custom tool), view_image and the web search
// call. Any other name (update_plan, an MCP tool's server__tool) is other.
var cxTools = map[string]string{
	"shell": ToolShell, "container.exec": ToolShell, "shell_command": ToolShell, "exec_command": ToolShell,
	"write_stdin": ToolShell, "local_shell": ToolShell,
	"apply_patch": ToolFileEdit, "view_image": ToolFileRead, "web_search": ToolBrowse,
}
