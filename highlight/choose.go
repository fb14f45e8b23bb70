package highlight

import (
	"math"
	"math/bits"
	"slices"
)

// The third stage: choosing among the candidates. The best passage is
// taken first (more distinct keywords, then weight, then length), and the
// rest are weighed again without the keywords already shown, until every
// keyword found is shown and the budget is reached. If what was taken is
// over the limits, each passage loses units from its edges in turn, least
// relevant first; what is still over drops whole passages, least relevant
// first. The chosen passages come back in text order.

// better reports whether a ranks above b.
func better(a, b *passage) bool {
	if a.uniqQwords != b.uniqQwords {
		return a.uniqQwords > b.uniqQwords
	}
	if wa, wb := a.weight(), b.weight(); wa != wb {
		return wa > wb
	}
	return a.codes > b.codes
}

// choose picks the passages of ctx to show under lim. found is the set of
// keywords present in the text; weights are the keywords' weights.
// The candidates of ctx are changed (weighed again); the passages returned
// live in ctx until it is used again.
func choose(ctx *context, lim limits, o *Options, weights []int, found uint64, fields []*ufield) []passage {
	cands := ctx.passages
	if len(cands) == 0 {
		return nil
	}
	maxPassages := len(cands)
	if lim.snippets > 0 {
		maxPassages = min(maxPassages, lim.snippets)
	}
	maxWords, maxCP := math.MaxInt, math.MaxInt
	if lim.words > 0 {
		maxWords = lim.words
	}
	if lim.chars > 0 {
		maxCP = lim.chars
	}
	original := slices.Grow(ctx.original[:0], len(cands))[:len(cands)]
	for i := range cands {
		original[i] = cands[i].qwordsWeight
	}
	taken := slices.Grow(ctx.taken[:0], len(cands))[:len(cands)]
	clear(taken)
	show := ctx.show[:0]
	defer func() { ctx.original, ctx.taken, ctx.show = original, taken, show[:0] }()
	weightOf := func(t int) int {
		if t < len(weights) {
			return weights[t]
		}
		return 0
	}
	var shown uint64
	totalCP, totalWords, keyCP, keyWords := 0, 0, 0, 0
	all := false
	for len(show) < maxPassages {
		best := -1
		for i := range cands {
			if !taken[i] && (best < 0 || better(&cands[i], &cands[best])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		b := cands[best]
		b.rank, b.score = len(show)+1, b.weight()
		// force_all_words: one passage may be as big as it takes.
		if !o.ForceAllWords || len(show) > 0 {
			if keyCP+b.codesBetween > maxCP || keyWords+b.wordsBetween > maxWords {
				break
			}
		}
		fits := totalCP+b.codes <= maxCP && totalWords+b.words <= maxWords
		if shown == found && !fits {
			// Perhaps just enough room to show it in part.
			if totalCP+b.codesBetween <= maxCP && totalWords+b.wordsBetween <= maxWords {
				totalWords += b.words
				totalCP += b.codes
				show = append(show, b)
			}
			break
		}
		show = append(show, b)
		shown |= b.qwords
		keyWords += b.wordsBetween
		keyCP += b.codesBetween
		totalWords += b.words
		totalCP += b.codes
		taken[best] = true
		if !all && shown == found {
			all = true
			for i := range cands {
				cands[i].qwordsWeight = original[i]
			}
		}
		if all {
			continue
		}
		// Weigh the others again without the keywords now shown.
		for i := range cands {
			c := &cands[i]
			if taken[i] {
				continue
			}
			for q := b.qwords & c.qwords; q != 0; q &= q - 1 {
				c.qwordsWeight -= weightOf(bits.TrailingZeros64(q))
				c.qwordCount--
				c.uniqQwords--
			}
			c.qwords &^= shown
		}
	}
	if (totalCP > maxCP || totalWords > maxWords) && !o.UseBoundaries {
		edges := make([]edgeUnits, len(show))
		for i := range show {
			edges[i] = show[i].edges(fields[show[i].field])
		}
		// Trim one unit from each passage in turn, least relevant first,
		// counting as the reference counts (edges: after a passage's marked
		// words it counts a unit nearer to them than the one that goes);
		// then, if what is shown is still over the limits, trim on,
		// counting what goes.
		realCP, realWords := totalCP, totalWords
		trim := func(counted bool) {
			fits := func() bool {
				if counted {
					return totalCP <= maxCP && totalWords <= maxWords
				}
				return realCP <= maxCP && realWords <= maxWords
			}
			first := true
			last := realCP
			for {
				for i := len(show) - 1; i >= 0; i-- {
					p, ed := &show[i], &edges[i]
					if len(ed.before) == 0 && len(ed.after) == 0 {
						continue
					}
					var dropFirst bool
					switch {
					case len(ed.before) > len(ed.after):
						dropFirst = true
					case len(ed.before) < len(ed.after):
						dropFirst = false
					case !ed.before[len(ed.before)-1].word && ed.after[len(ed.after)-1].word:
						dropFirst = true
					case ed.before[len(ed.before)-1].word && !ed.after[len(ed.after)-1].word:
						dropFirst = false
					default:
						dropFirst = first
					}
					var u, gone edgeUnit
					if dropFirst {
						u = ed.before[len(ed.before)-1]
						ed.before = ed.before[:len(ed.before)-1]
						gone = u
						p.start++
						p.from += int(u.bytes)
					} else {
						u = ed.after[len(ed.after)-1]
						ed.after = ed.after[:len(ed.after)-1]
						gone = ed.tail[len(ed.after)]
						p.to -= int(gone.bytes)
					}
					p.tokens--
					p.codes -= int(gone.cp)
					totalCP -= int(u.cp)
					totalWords -= b2i(u.word)
					realCP -= int(gone.cp)
					realWords -= b2i(gone.word)
					if fits() {
						return
					}
				}
				if realCP == last {
					return
				}
				last = realCP
				first = !first
			}
		}
		trim(true)
		if realCP > maxCP || realWords > maxWords {
			trim(false)
		}
		totalCP, totalWords = realCP, realWords
	}
	// The limit is sacred: drop the least relevant passages.
	for (totalCP > maxCP || totalWords > maxWords) && !o.ForceAllWords && len(show) > 0 {
		p := show[len(show)-1]
		totalCP -= p.codes
		totalWords -= p.words
		show = show[:len(show)-1]
	}
	slices.SortStableFunc(show, func(a, b passage) int { return a.start - b.start })
	return show
}

// edgeUnits are the units trimming may drop from a passage, nearest to
// its marked words first.
type edgeUnits struct {
	before, after []edgeUnit
	tail          []edgeUnit // the passage's last len(after) units
}

// edges makes the lists of units trimming may drop from p: the units
// before the first marked word, and the afterN units that follow its last
// marked word (the reference's count of them may be fewer than the units
// there). A unit dropped before goes with its own bytes, codepoints and
// word. After, as the reference trims, the codepoints and word counted are
// those of the list's last unit while the unit that goes is the passage's
// last (tail): the same unit when the list reaches the passage's end, but
// for a passage that holds more units after its marked words than the
// list, the count is of a unit nearer to them.
func (p *passage) edges(f *ufield) (ed edgeUnits) {
	if p.beforeN == 0 && p.afterN == 0 {
		return ed
	}
	var units []edgeUnit
	f.walkRange(p.from, p.to, func(u *unit) {
		units = append(units, edgeUnit{u.cp, u.end - u.start, u.word()})
	})
	first := p.endLimit + 1 - p.start
	if p.beforeN+p.afterN > len(units) || first+p.afterN > len(units) {
		return ed // not the units the window saw: leave the passage whole
	}
	ed.before = make([]edgeUnit, p.beforeN)
	for i := range ed.before {
		ed.before[i] = units[p.beforeN-1-i]
	}
	ed.after = units[first : first+p.afterN]
	ed.tail = make([]edgeUnit, p.afterN)
	for j := range ed.tail {
		ed.tail[j] = units[len(units)-p.afterN+j]
	}
	return ed
}
