package highlight

import "sort"

// What Request.Offsets adds to a result: the keywords each marked span
// shows, and the way back from the shown text to the field's own text
// where stripping HTML made them differ. It is computed after the
// snippets, only when asked for, so highlighting without it pays nothing.

// annotate completes res for req.Offsets.
func annotate(req *Request, fields []*ufield, res *Result) {
	if !req.Offsets {
		return
	}
	for i, f := range fields {
		fr, in := &res.Fields[i], &req.Fields[i]
		if f.text != in.Text {
			fr.stored = storedMap(in, f.strip)
		}
		var byPos map[int32]uint64
		for j := range fr.Snippets {
			for k := range fr.Snippets[j].Marks {
				if byPos == nil {
					byPos = f.keywordsByPos(in)
				}
				m := &fr.Snippets[j].Marks[k]
				m.Keywords = f.keywordsIn(m.Start, m.End, byPos)
			}
		}
	}
}

// keywordsByPos is, per marked position, the keywords marked there: those
// of the matcher's marks and those the parts of a blended word took from it.
func (f *ufield) keywordsByPos(in *Field) map[int32]uint64 {
	m := make(map[int32]uint64, len(f.hits))
	bit := func(k int) uint64 {
		if k < 0 || k >= 64 {
			return 0
		}
		return 1 << uint(k)
	}
	for _, h := range f.hits {
		m[h.pos] |= bit(h.term)
	}
	for _, mk := range in.Marks {
		m[int32(mk.Pos)] |= bit(mk.Keyword)
	}
	return m
}

// keywordsIn is the keywords of the marked words whose bytes lie in the
// shown text's [start, end).
func (f *ufield) keywordsIn(start, end int, byPos map[int32]uint64) uint64 {
	var ks uint64
	i := sort.Search(len(f.words), func(i int) bool { return int(f.words[i].Start) >= start })
	for ; i < len(f.words) && int(f.words[i].Start) < end; i++ {
		if int(f.words[i].End) <= end {
			ks |= byPos[f.words[i].Pos]
		}
	}
	return ks
}

// storedMap maps offsets of the shown text of a field whose markup was
// stripped to offsets of its own text: a start to where the shown byte
// there came from, an end to where the original of the byte before it
// ends.
func storedMap(in *Field, how stripHow) func(x int, end bool) int {
	r, _, at := stripShown(in, how)
	n := len(r.Text)
	return func(y int, end bool) int {
		if end {
			// The first stripped byte that lands at or after y.
			x := sort.Search(n+1, func(i int) bool { return int(at[i]) >= y })
			if x == 0 {
				return 0
			}
			_, e := r.Orig(x-1, x)
			return e
		}
		// The last stripped byte that lands at y.
		x := sort.Search(n+1, func(i int) bool { return int(at[i]) > y }) - 1
		if x >= n {
			_, e := r.Orig(n, n)
			return e
		}
		s, _ := r.Orig(x, x+1)
		return s
	}
}

// StoredOffset maps offset x of the field's shown text (Text) to its own
// text, the text the caller gave (they differ where HTML was stripped):
// the start of what is shown from x on, or with end, the end of what is
// shown before x. It needs Request.Offsets; without it, or where nothing
// was stripped, it is x.
func (fr *FieldResult) StoredOffset(x int, end bool) int {
	if fr.stored == nil {
		return x
	}
	return fr.stored(x, end)
}
