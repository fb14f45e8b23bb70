package corpus

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// AptListsDir is where apt keeps its package lists.
const AptListsDir = "/var/lib/apt/lists"

// ReadDebian reads every package stanza of the *_Packages lists in dir (in
// file-name order, then file order), with the long descriptions of the
// *_i18n_Translation-en lists, into documents numbered from 1. When dir has no
// English translations it runs `apt-get update -o Acquire::Languages=en` first
// (the descriptions in the Packages lists are one line only).
func ReadDebian(ctx context.Context, dir string) ([]Doc, error) {
	translations, err := filepath.Glob(filepath.Join(dir, "*_i18n_Translation-en*"))
	if err != nil {
		return nil, err
	}
	if len(translations) == 0 {
		if err := aptUpdateEnglish(ctx); err != nil {
			return nil, err
		}
		if translations, err = filepath.Glob(filepath.Join(dir, "*_i18n_Translation-en*")); err != nil {
			return nil, err
		}
	}
	long := map[string]string{} // Description-md5 -> short + long description
	sort.Strings(translations)
	for _, path := range translations {
		text, err := catAptFile(ctx, path)
		if err != nil {
			return nil, err
		}
		for _, st := range stanzas(text) {
			if md5, desc := st["Description-md5"], st["Description-en"]; md5 != "" && desc != "" {
				long[md5] = desc
			}
		}
	}
	lists, err := filepath.Glob(filepath.Join(dir, "*_Packages*"))
	if err != nil {
		return nil, err
	}
	if len(lists) == 0 {
		return nil, fmt.Errorf("corpus: no package lists in %s (run apt-get update)", dir)
	}
	sort.Strings(lists)
	var docs []Doc
	for _, path := range lists {
		text, err := catAptFile(ctx, path)
		if err != nil {
			return nil, err
		}
		for _, st := range stanzas(text) {
			name := st["Package"]
			if name == "" {
				continue
			}
			desc := st["Description"]
			if d, ok := long[st["Description-md5"]]; ok && (desc == "" || !strings.Contains(desc, "\n")) {
				desc = d
			}
			docs = append(docs, Doc{ID: uint64(len(docs) + 1), Title: name, Content: plainDescription(desc)})
		}
	}
	return docs, nil
}

// stanzas splits a deb822 control file into stanzas of field -> value, the
// continuation lines of a value joined with "\n" (each keeping its leading space).
func stanzas(text []byte) []map[string]string {
	var out []map[string]string
	cur := map[string]string{}
	last := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if len(cur) > 0 {
				out = append(out, cur)
				cur, last = map[string]string{}, ""
			}
		case line[0] == ' ' || line[0] == '\t':
			if last != "" {
				cur[last] += "\n" + line
			}
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			last = k
			cur[k] = strings.TrimSpace(v)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// plainDescription turns a Debian description (short line, then long lines
// indented by one space, " ." for a blank line) into plain text.
func plainDescription(desc string) string {
	lines := strings.Split(desc, "\n")
	for i := 1; i < len(lines); i++ {
		l := strings.TrimPrefix(lines[i], " ")
		if l == "." {
			l = ""
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// catAptFile reads an apt list, which apt may keep compressed (lz4, gz, xz).
func catAptFile(ctx context.Context, path string) ([]byte, error) {
	if filepath.Ext(path) == "" {
		return os.ReadFile(path)
	}
	out, err := exec.CommandContext(ctx, "/usr/lib/apt/apt-helper", "cat-file", path).Output()
	if err != nil {
		return nil, fmt.Errorf("corpus: apt-helper cat-file %s: %w", path, err)
	}
	return out, nil
}

// aptUpdateEnglish fetches the English package descriptions.
func aptUpdateEnglish(ctx context.Context) error {
	args := []string{"apt-get", "update", "-q", "-o", "Acquire::Languages=en"}
	if os.Geteuid() != 0 {
		args = append([]string{"sudo", "-n"}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("corpus: %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
