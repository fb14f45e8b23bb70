// Package htmlstrip turns an HTML field into the text that is tokenized
// (html_strip=1), with the marks of its paragraphs (index_sp) and zones
// (index_zones), and a map from that text back to the HTML. The tokenizer
// strips before it splits words; the highlighter uses Result.Orig to put its
// markers into the original HTML, so the map is exact to the byte.
//
//	s := htmlstrip.New(&htmlstrip.Options{Zones: []string{"h*"}})
//	r := s.Strip("<h1>Caf&eacute;s</h1><p>Hel<b>lo</b>, world")
//	// r.Text  == " Cafés  Hello, world"
//	// r.Marks == {1 ZoneOpen h1} {7 ZoneClose h1} {7 Paragraph}
//	// r.Orig(9, 14) == (24, 32): "Hel<b>lo"
//	// r.Orig(4, 6)  == (7, 15):  "&eacute;"
//
// New compiles the Options once per table; Stripper.Strip runs per field.
// ParseRemoveElements, ParseIndexAttrs and ParseZones read the setting values
// in Sphinx's syntax and say where a value is wrong.
//
// # Reading the HTML
//
// The markup is read by golang.org/x/net/html's Tokenizer, the way browsers
// read it: "<" starts a tag only before an ASCII letter ("a < b", "3<4" and
// "<>" are text), an unterminated tag at the very end is dropped, "</>" is
// nothing, "</3 ...>" and "<![CDATA[...]]>" are comments, attribute values may
// be quoted or not. Sphinx's own stripper reads several of these differently
// (it keeps "</3", "</>" and CDATA sections as text, and parses tags inside
// <script>); glint reads them like a browser.
//
// # Tags
//
// Tags are removed. Inline tags do not separate words: "hel<b>lo</b>" is the
// word "hello". They are Sphinx 2.2's list, checked against its searchd: a, b,
// i, u, s, em, strong, span, font, big, small, sub, sup, tt, strike, label,
// img and basefont. Every other tag, known or not (abbr, code, br, td, ...),
// becomes one space in Text, and that space maps to the whole tag. An inline
// tag that is a zone, or that carries an indexed attribute, separates words
// too. Spaces are not collapsed: "</td></tr>" is two spaces; CR and NUL
// bytes stay as they are.
//
// Comments, the doctype and processing instructions leave no trace, not even a
// space ("a<!-- x -->b" is "ab", as in Sphinx).
//
// A self-closing tag ("<div/>", "<script/>") is an empty element, as XHTML
// means it (browsers treat it as an open tag).
//
// # Element content
//
// The content of script, style, xmp and plaintext is text taken literally (no
// tags, no entities); title and textarea hold text whose entities are
// decoded but whose "<b>" is literal. Like Sphinx, glint keeps the text of
// script and style unless html_remove_elements lists them. noscript,
// noframes, noembed and iframe hold markup, which is stripped as usual (as a
// browser without scripts, frames or plugins shows it).
//
// An element listed in html_remove_elements is dropped with all its content,
// from its start tag to the matching end tag (elements of the same name
// nested inside are counted), or to the end of the input if it is never
// closed. What remains is one space, mapped to the whole element (nothing for
// an inline element), and a Paragraph mark if it is a block element. A void
// or self-closing one loses only its tag (and its attributes are not
// indexed).
//
// # Entities
//
// Character references are decoded as the reference (Manticore, and Sphinx
// before it) decodes them, not as browsers do: a name of the HTML 4.01 set
// (html4.go, made by scripts/html4entities.py from Python's table, and
// "apos"), case as written, followed by ';' ("&amp;", "&eacute;"), with
// "&nbsp;" a plain space; "&#" decimal or "&#x" hex digits followed by ';'
// above 31 (a surrogate is U+FFFD, a number past Unicode wraps as the
// reference's does). Without the ';', or under 32, a numeric reference is
// dropped with its digits; any other '&' ("&amp" without ';', "&bogus;",
// HTML5's "&semi;") is text. A decoded character maps to the whole
// reference. Options.KeepEntities decodes none (what html_strip_mode=strip
// shows).
//
// # Attributes (html_index_attrs)
//
// The values of the listed attributes of a tag are inserted into Text where
// the tag stands, in the order of the tag, the first of attributes of the same
// name only, empty ones left out; entities in them are kept as written, as
// the reference keeps them. Each value
// has a space before and after it, so `c<img alt="A" title="T">d` is
// "c A T d"; the spaces map to the bytes of the tag between the values (`<img
// alt="`, `" title="`, `">`), the values map to themselves. (Sphinx glues the
// first value to the word before it.)
//
// # Paragraphs (index_sp)
//
// A start or end tag of address, blockquote, caption, center, dd, div, dl,
// dt, h1..h6, li, menu, ol, p, pre, table, tbody, td, tfoot, th, thead, tr or
// ul is a paragraph boundary; so is any tag of a zone. That is Sphinx 2.2's
// list, checked against its searchd, where zone tags also break paragraphs
// and br, hr, section and article do not. The Paragraph mark stands before
// the tag's space. There is at most one mark between two stretches of text,
// and none before the first text or after the last ("text" here is anything
// but ASCII space).
//
// # Zones (index_zones)
//
// A zone name matches a tag by its whole name, or by prefix when it ends in
// '*': "h*" matches h1..h6 but also hr, head, header and html, as in Sphinx.
// ZoneOpen stands after the start tag's space (so an attribute value the tag
// carries is inside the zone), ZoneClose before the end tag's space. Zones
// nest like the elements. The element structure follows HTML's rules where
// they matter for zones, simplified:
//
//   - An end tag closes the nearest open element of its name and every
//     element opened after it (closing the zones among them, innermost
//     first), unless a table, cell, caption, object, marquee, applet,
//     template or html element stands between: "<h1>a<b>b</h1>" closes b and
//     h1; "<h1><table><td>x</h1>" closes nothing. An end tag with no open
//     element of its name is ignored (but still a separator and, for a zone
//     or block tag, a paragraph boundary). Any heading end tag closes any
//     open heading; </html> and </body> close nothing.
//   - Start tags imply end tags as in HTML: p is closed by a block start tag,
//     li by li, dd and dt by dd and dt, td and th by td and th, tr by tr,
//     thead/tbody/tfoot by each other, option by option, a heading by a
//     heading directly inside it, a by a, head by body. So "<tr><th>A<th>B"
//     is two th zones.
//   - Void elements (br, hr, img, input, meta, ...) and self-closing tags are
//     empty zones: ZoneOpen and ZoneClose at the same place, or around the
//     element's indexed attribute values.
//   - Zones still open at the end of the input close there.
//   - Only 256 elements are kept open; a zone element nested deeper is not
//     marked (its tags still separate words and paragraphs).
//
// # The map back (Result.Orig)
//
// Text is made of runs: verbatim runs, copied from the input, which map 1:1;
// and replaced runs (a decoded reference, a separator space), which map to
// their whole input range. Input between runs (inline tags, comments) maps to
// nothing. Orig(start, end) is the input range from the original of the
// first byte to the original of the last, so it covers removed tags in
// between: "hel<b>lo</b>" is "hello", and Orig(0, 5) is "hel<b>lo". The runs
// are kept in a slice searched by binary search; a text without '<' and '&'
// is returned as it is, with no copy and no runs.
package htmlstrip
