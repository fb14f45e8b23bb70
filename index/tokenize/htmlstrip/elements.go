package htmlstrip

import "golang.org/x/net/html/atom"

// elemFlags classifies an element by what the stripper does with its tags.
type elemFlags uint32

const (
	// inline tags do not separate words: "hel<b>lo</b>" is "hello".
	// Sphinx 2.2's list, checked against its searchd.
	fInline elemFlags = 1 << iota
	// para tags are paragraph boundaries (index_sp). Sphinx 2.2's list.
	fPara
	// void elements have no content and no end tag.
	fVoid
	// special elements (HTML's "special" category) stop the search for the
	// element that an unknown end tag closes.
	fSpecial
	// rawText elements hold text in which markup and entities are not
	// recognized (script, style, xmp, plaintext).
	fRawText
	// rcdata elements hold text in which markup is not recognized but entities
	// are (title, textarea).
	fRCData
	// fallback elements hold what a browser without scripts, frames or
	// plugins shows (noscript, noframes, noembed, iframe): the Tokenizer
	// reads their content as raw text, the stripper as markup.
	fFallback
	// closesP start tags close an open p element.
	fClosesP
	// heading elements (h1..h6) close each other.
	fHeading
	// scope elements bound the search for the element an end tag closes.
	fScope
	// The rest name small groups for the searches of the stack.
	fTableScope   // html, table, template
	fCell         // td, th
	fRow          // tr
	fSection      // tbody, thead, tfoot
	fList         // ol, ul
	fDdDt         // dd, dt
	fButton       // button
	fPlainSpecial // address, div, p: special, but an li does not stop at them
)

// flagsOf returns the flags of a known element; 0 for an unknown one.
func flagsOf(a atom.Atom) elemFlags {
	if a == 0 {
		return 0
	}
	return elements[a]
}

var elements = buildElements()

func buildElements() map[atom.Atom]elemFlags {
	m := make(map[atom.Atom]elemFlags, 128)
	set := func(f elemFlags, as ...atom.Atom) {
		for _, a := range as {
			m[a] |= f
		}
	}
	set(fInline, atom.A, atom.B, atom.I, atom.U, atom.S, atom.Em, atom.Strong,
		atom.Span, atom.Font, atom.Big, atom.Small, atom.Sub, atom.Sup, atom.Tt,
		atom.Strike, atom.Label, atom.Img, atom.Basefont)
	set(fPara, atom.Address, atom.Blockquote, atom.Caption, atom.Center, atom.Dd,
		atom.Div, atom.Dl, atom.Dt, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5,
		atom.H6, atom.Li, atom.Menu, atom.Ol, atom.P, atom.Pre, atom.Table,
		atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul)
	set(fVoid, atom.Area, atom.Base, atom.Basefont, atom.Bgsound, atom.Br,
		atom.Col, atom.Embed, atom.Frame, atom.Hr, atom.Img, atom.Input,
		atom.Keygen, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track,
		atom.Wbr)
	set(fSpecial, atom.Address, atom.Applet, atom.Area, atom.Article, atom.Aside,
		atom.Base, atom.Basefont, atom.Bgsound, atom.Blockquote, atom.Body,
		atom.Br, atom.Button, atom.Caption, atom.Center, atom.Col, atom.Colgroup,
		atom.Dd, atom.Details, atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Embed,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.Frame, atom.Frameset, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5,
		atom.H6, atom.Head, atom.Header, atom.Hgroup, atom.Hr, atom.Html,
		atom.Iframe, atom.Img, atom.Input, atom.Keygen, atom.Li, atom.Link,
		atom.Listing, atom.Main, atom.Marquee, atom.Menu, atom.Meta, atom.Nav,
		atom.Noembed, atom.Noframes, atom.Noscript, atom.Object, atom.Ol, atom.P,
		atom.Param, atom.Plaintext, atom.Pre, atom.Script, atom.Search,
		atom.Section, atom.Select, atom.Source, atom.Style, atom.Summary,
		atom.Table, atom.Tbody, atom.Td, atom.Template, atom.Textarea,
		atom.Tfoot, atom.Th, atom.Thead, atom.Title, atom.Tr, atom.Track,
		atom.Ul, atom.Wbr, atom.Xmp)
	set(fRawText, atom.Plaintext, atom.Script, atom.Style, atom.Xmp)
	set(fFallback, atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript)
	set(fRCData, atom.Textarea, atom.Title)
	set(fClosesP, atom.Address, atom.Article, atom.Aside, atom.Blockquote,
		atom.Center, atom.Details, atom.Dialog, atom.Dir, atom.Div, atom.Dl,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header,
		atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P,
		atom.Search, atom.Section, atom.Summary, atom.Ul, atom.H1, atom.H2,
		atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Listing, atom.Form,
		atom.Plaintext, atom.Li, atom.Dd, atom.Dt, atom.Table, atom.Hr, atom.Xmp)
	set(fHeading, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6)
	set(fScope, atom.Applet, atom.Caption, atom.Html, atom.Table, atom.Td,
		atom.Th, atom.Marquee, atom.Object, atom.Template)
	set(fTableScope, atom.Html, atom.Table, atom.Template)
	set(fCell, atom.Td, atom.Th)
	set(fRow, atom.Tr)
	set(fSection, atom.Tbody, atom.Thead, atom.Tfoot)
	set(fList, atom.Ol, atom.Ul)
	set(fDdDt, atom.Dd, atom.Dt)
	set(fButton, atom.Button)
	set(fPlainSpecial, atom.Address, atom.Div, atom.P)
	return m
}
