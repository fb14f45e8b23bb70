package query

// Test helpers: the parser has no use for a generic walk.

// walk calls fn for n and then, depth first and in query order, for every node
// under it, until fn returns false (which skips the node's children).
func walk(n Node, fn func(Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	switch n := n.(type) {
	case And:
		for _, c := range n.Children {
			walk(c, fn)
		}
	case Or:
		for _, c := range n.Children {
			walk(c, fn)
		}
	case Not:
		walk(n.Child, fn)
	case Phrase:
		for _, w := range n.Words {
			walk(w, fn)
		}
	case Proximity:
		for _, w := range n.Words {
			walk(w, fn)
		}
	case Quorum:
		for _, w := range n.Words {
			walk(w, fn)
		}
	case Near:
		walk(n.Left, fn)
		walk(n.Right, fn)
	case NotNear:
		walk(n.Left, fn)
		walk(n.Right, fn)
	case Before:
		for _, c := range n.Children {
			walk(c, fn)
		}
	case Maybe:
		walk(n.Left, fn)
		walk(n.Right, fn)
	case Sentence:
		for _, c := range n.Children {
			walk(c, fn)
		}
	case Paragraph:
		for _, c := range n.Children {
			walk(c, fn)
		}
	case Zone:
		walk(n.Child, fn)
	case Field:
		walk(n.Child, fn)
	}
}

// keywords appends every Keyword of the tree under n to dst, in query order
// (negated ones included).
func keywords(dst []Keyword, n Node) []Keyword {
	walk(n, func(n Node) bool {
		if k, ok := n.(Keyword); ok {
			dst = append(dst, k)
		}
		return true
	})
	return dst
}
