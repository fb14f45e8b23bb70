package htmlstrip_test

import (
	"fmt"

	"github.com/glint-search/glint/index/tokenize/htmlstrip"
)

func Example() {
	zones, _ := htmlstrip.ParseZones("h*")
	s := htmlstrip.New(&htmlstrip.Options{Zones: zones})

	in := "<h1>Caf&eacute;s</h1><p>Hel<b>lo</b>, world"
	r := s.Strip(in)
	fmt.Printf("%q\n", r.Text)
	for _, m := range r.Marks {
		fmt.Printf("%+v\n", m)
	}
	// "Hello" is Text[9:14]; it comes from "Hel<b>lo" in the input.
	o1, o2 := r.Orig(9, 14)
	fmt.Printf("%q\n", in[o1:o2])
	// "é" comes from the entity.
	o1, o2 = r.Orig(4, 6)
	fmt.Printf("%q\n", in[o1:o2])
	// Output:
	// " Cafés  Hello, world"
	// {At:1 Kind:ZoneOpen Name:h1}
	// {At:7 Kind:ZoneClose Name:h1}
	// {At:7 Kind:Paragraph Name:}
	// "Hel<b>lo"
	// "&eacute;"
}
