package sql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/glint-search/glint/highlight"
	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// maxSnippetFiles bounds the files one CALL SNIPPETS reads (load_files),
// each and together: as much as one statement may carry inline under the
// default max_allowed_packet.
const maxSnippetFiles = 64 << 20

// bytesPerHelper is how much text a CALL SNIPPETS hands each goroutine
// beyond its own at least: package descriptions of a few hundred bytes
// take a few microseconds each, less than waking a helper costs.
const bytesPerHelper = 16 << 10

// SetSnippetsFilePrefix sets the directory CALL SNIPPETS(..., 1 AS
// load_files) reads files from. Nothing outside it can be read: file names
// are resolved inside an os.Root, which refuses "..", absolute paths and
// symlinks that lead out. An empty dir turns load_files off.
func (e *Engine) SetSnippetsFilePrefix(dir string) error {
	if dir == "" {
		e.files = nil
		return nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("snippets_file_prefix: %w", err)
	}
	e.files = root
	return nil
}

// callSnippets runs CALL SNIPPETS(data, 'table', 'query' [, value AS option ...]):
// one row per text, in order, highlighted with the table's tokenization
// settings by the same highlighter as HIGHLIGHT(). Field limits in the query
// are ignored (the texts are no fields of the table).
func (s *Session) callSnippets(ctx context.Context, n *ast.CallStmt) (*Result, error) {
	proc := n.Procedure
	if proc == nil || proc.FnName.L != "snippets" {
		name := ""
		if proc != nil {
			name = proc.FnName.O
		}
		return nil, Errorf(CodeUnsupported, "unknown procedure '%s': glint has CALL SNIPPETS and CALL KEYWORDS", name)
	}
	args := proc.Args
	if len(args) < 3 {
		return nil, Errorf(CodeSyntax, "CALL SNIPPETS takes the texts, the table and the query, then options as 'value AS name'")
	}
	var data []string
	first := args[0]
	for {
		p, ok := first.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		first = p.Expr
	}
	switch d := first.(type) {
	case *ast.RowExpr:
		for i, v := range d.Values {
			str, ok := stringValue(v)
			if !ok {
				return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: text %d of the list is not a quoted string", i+1)
			}
			data = append(data, str)
		}
	default:
		str, ok := stringValue(first)
		if !ok {
			return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: the first argument must be a quoted string or a list of them, like ('text one', 'text two')")
		}
		data = []string{str}
	}
	if len(data) == 0 {
		return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: the list of texts is empty")
	}
	tableName, ok := stringValue(args[1])
	if !ok {
		return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: the second argument must be the table name, quoted")
	}
	q, ok := stringValue(args[2])
	if !ok {
		return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: the third argument must be the query, quoted")
	}
	options, fromCoordinator := takeShardMark(args[3:])
	if d, dist, err := s.distributed(tableName); dist {
		if err != nil {
			return nil, err
		}
		if fromCoordinator {
			return nil, nestedError(tableName, "CALL SNIPPETS with "+shardCallMark)
		}
		return s.snippetsDistributed(ctx, d, data, q, options)
	}
	if unlock, held := s.engine.repl.holdDBs(s); held {
		defer unlock() // a cluster's database is not replaced under the call
	}
	t, err := s.table(tableName)
	if err != nil {
		return nil, err
	}
	snap := t.Snapshot()
	cfg := snap.Schema().Tokenization
	opts := highlight.DefaultOptions()
	list := highlight.List{Opts: &opts, Scope: highlight.ScopeCall}
	for _, a := range options {
		call, ok := a.(*ast.FuncCallExpr)
		if !ok || call.FnName.L != dialect.FuncAs || len(call.Args) != 2 {
			return nil, Errorf(CodeSyntax, "CALL SNIPPETS: options are written 'value AS name', like 200 AS limit")
		}
		name, _ := stringValue(call.Args[1])
		if err := bigOptionNumber(name, call.Args[0]); err != nil {
			return nil, Errorf(CodeBadOption, "CALL SNIPPETS: %v", err)
		}
		v, ok := optionValue(call.Args[0])
		if !ok {
			return nil, Errorf(CodeBadOption, "CALL SNIPPETS: option '%s' takes a number or a quoted string", name)
		}
		if err := list.Set(name, v); err != nil {
			return nil, Errorf(CodeBadOption, "CALL SNIPPETS: %v", err)
		}
	}
	if err := opts.CheckTable(cfg.IndexSP, len(cfg.IndexZones) > 0); err != nil {
		return nil, Errorf(CodeBadOption, "CALL SNIPPETS: %v", list.Named(err))
	}
	if err := opts.CheckCall(); err != nil {
		return nil, Errorf(CodeBadOption, "CALL SNIPPETS: %v", list.Named(err))
	}
	query, err := snap.ParseQuery(q)
	if err != nil {
		return nil, Errorf(CodeQuerySyntax, "CALL SNIPPETS: %v", err)
	}
	matcher, err := snap.TextMatcher(query, true)
	var qe *index.QueryError
	if errors.As(err, &qe) {
		return nil, Errorf(CodeQuerySyntax, "CALL SNIPPETS: %v", qe)
	}
	if err != nil {
		return nil, asError(err)
	}
	if opts.LoadFiles || opts.LoadFilesScattered {
		if data, err = s.loadSnippetFiles(data, opts.LoadFilesScattered); err != nil {
			return nil, err
		}
	} else {
		for i, text := range data {
			// (As writes refuse it: snippets of it would not be UTF-8.)
			if msg := notUTF8(text); msg != "" {
				return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: text %d: %s", i+1, msg)
			}
		}
	}
	res := &Result{Columns: []Column{{"snippet", ColString}}, Rows: make([][]any, len(data))}
	var keywords []string
	if opts.Offsets {
		// offsets: a second column, the snippets as data (docs/beyond.md).
		res.Columns = append(res.Columns, Column{"offsets", ColString})
		keywords = matcher.KeywordTexts()
	}
	maxResult := s.MaxAllowedPacket()
	row := func(i int, req *highlight.Request) error {
		req.Offsets, req.Units = opts.Offsets, matcher.Units()
		s.engine.stats.countHighlight(req)
		hl := highlight.Highlight(req)
		defer hl.Release()
		if err := tooBig(fmt.Sprintf("CALL SNIPPETS, text %d", i+1), hl, maxResult); err != nil {
			return err
		}
		if !opts.Offsets {
			res.Rows[i] = []any{hl.Join()}
		} else {
			res.Rows[i] = []any{hl.Join(), offsetsJSON(hl, []string{req.Fields[0].Text}, keywords)}
		}
		return nil
	}
	weights := matcher.KeywordWeights()
	table := tableForHighlight(cfg).withTokenizer(snap.Tokenizer())
	costs := make([]int, len(data))
	for i, text := range data {
		costs[i] = len(text)
	}
	budget := s.engine.budgetOf(&opts)
	over, truncated := spend(budget, costs)
	if truncated > 0 {
		s.pending = append(s.pending, budgetWarning(truncated, "texts", budget))
	}
	fallback := hlMatchers{anyText: matcher}
	var fallbackOpts *highlight.Options // (only the texts over the budget need them)
	if over != nil {
		fallbackOpts = fallbackOptions(&opts)
	}
	one := func(i int) error {
		if over != nil && over[i] {
			var ms rowMatches
			defer ms.release()
			f, err := fallback.beginningField(table, "", data[i], fallbackOpts.Limit, table.html, &ms)
			if err != nil {
				return err
			}
			return row(i, &highlight.Request{Fields: []highlight.Field{f}, Options: fallbackOpts})
		}
		m, err := matcher.Match(nil, []string{data[i]})
		if err != nil {
			return asError(err)
		}
		defer m.Release()
		f := table.field("", data[i], m.Fields[0], table.html)
		return row(i, &highlight.Request{Fields: []highlight.Field{f}, Weights: weights, Options: &opts})
	}
	// Large batches on several goroutines, bounded: a helper costs a
	// wake-up and a hand-over that a few short texts do not repay.
	total := 0
	for _, c := range costs {
		total += c
	}
	workers := min(len(data)/8+1, total/bytesPerHelper+1)
	if err := s.engine.helpers.each(ctx, len(data), workers, func() func(int) error { return one }); err != nil {
		return nil, err
	}
	s.engine.stats.Highlights.Add(uint64(len(data)))
	return res, nil
}

// loadSnippetFiles reads the named files under snippets_file_prefix. With
// scattered, a missing file gives an empty text; otherwise it is an error
// naming the file. Names that could leave the directory are refused
// before anything is opened.
func (s *Session) loadSnippetFiles(names []string, scattered bool) ([]string, error) {
	root := s.engine.files
	if root == nil {
		return nil, Errorf(CodeBadOption, "CALL SNIPPETS: load_files is off: the server has no snippets_file_prefix (flag --snippets-file-prefix)")
	}
	out := make([]string, len(names))
	total := 0
	for i, name := range names {
		switch {
		case name == "":
			return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: file %d has an empty name", i+1)
		case strings.ContainsRune(name, 0):
			return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: file name %q contains a NUL byte", name)
		case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`):
			return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' is an absolute path; names are relative to snippets_file_prefix", name)
		case !filepath.IsLocal(name):
			return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' leads outside snippets_file_prefix", name)
		}
		text, err := readSnippetFile(root, name, maxSnippetFiles-total)
		switch {
		case errors.Is(err, fs.ErrNotExist) && scattered:
			continue
		case errors.Is(err, fs.ErrNotExist):
			return nil, Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' does not exist under snippets_file_prefix", name)
		case err != nil:
			return nil, err
		}
		total += len(text)
		out[i] = text
	}
	return out, nil
}

// readSnippetFile reads one regular file of at most limit bytes under root.
// It never waits on anything but the disk: the file is opened non-blocking
// (a FIFO with no writer would otherwise block the open, and its reads
// forever), and anything but a regular file is refused before a byte is
// read, as is a file over the limit. A missing file is an fs.ErrNotExist;
// other errors are *Error naming the file.
func readSnippetFile(root *os.Root, name string, limit int) (string, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if rel, ok := resolvedInside(root, name); ok {
			// An absolute symbolic link to a file under the prefix, which
			// os.Root refuses as it refuses every absolute link: opened
			// at the path it leads to, in the root again.
			f, err = root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", err // the caller's to answer: load_files_scattered makes it an empty text
	}
	if err != nil {
		return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' cannot be read: %s", name, fileErr(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' cannot be read: %s", name, fileErr(err))
	}
	if !st.Mode().IsRegular() {
		return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' is %s, not a regular file", name, fileKind(st.Mode()))
	}
	if st.Size() > int64(limit) {
		if limit < maxSnippetFiles {
			return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' (%d bytes) takes the files of the statement over %d MB together", name, st.Size(), maxSnippetFiles>>20)
		}
		return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' (%d bytes) is larger than %d MB", name, st.Size(), maxSnippetFiles>>20)
	}
	// The file may grow between Stat and the read: read no more than the limit.
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' cannot be read: %s", name, fileErr(err))
	}
	if len(b) > limit {
		return "", Errorf(CodeWrongValue, "CALL SNIPPETS: file '%s' grew over %d MB while it was read", name, maxSnippetFiles>>20)
	}
	return string(b), nil
}

// resolvedInside follows the symbolic links of name under root and
// returns where it leads relative to root, when that is inside root.
func resolvedInside(root *os.Root, name string) (string, bool) {
	base, err := filepath.EvalSymlinks(root.Name())
	if err != nil {
		return "", false
	}
	target, err := filepath.EvalSymlinks(filepath.Join(base, name))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(base, target)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// fileKind names a file type that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file (" + m.Type().String() + ")"
}

// fileErr says why a file could not be read without naming server paths.
func fileErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Err.Error(), "escapes") || strings.Contains(pe.Err.Error(), "outside") {
			return "it leads outside snippets_file_prefix"
		}
		return pe.Err.Error()
	}
	return err.Error()
}
