package objects

import (
	"errors"
	"testing"
)

func TestObjectRoundTrip(t *testing.T) {
	l := layout{contributions: 3, categories: 7}
	pad := []byte("0123456789abcdef")
	for _, o := range l.objectsOf(41, pad) {
		b := o.Append(nil)
		if len(b) != o.Size() {
			t.Fatalf("%s %d: %d bytes, Size says %d", o.Kind, o.OID, len(b), o.Size())
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("decode %s %d: %v", o.Kind, o.OID, err)
		}
		if back.OID != o.OID || back.Kind != o.Kind || back.Parent != o.Parent || back.Title != o.Title ||
			len(back.Refs) != len(o.Refs) || string(back.Pad) != string(o.Pad) || back.Start != o.Start || back.End != o.End {
			t.Fatalf("round trip changed %+v into %+v", o, back)
		}
		if err := l.valid(o.OID, back); err != nil {
			t.Errorf("valid(%d): %v", o.OID, err)
		}
	}
	cat := &Object{Kind: Category, OID: categoryBase + 3, Refs: []uint64{l.conference(3), l.conference(10)}}
	if back, err := Decode(cat.Append(nil)); err != nil || l.valid(cat.OID, back) != nil || len(back.Refs) != 2 {
		t.Fatalf("category: %v %+v", err, back)
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	l := layout{contributions: 2, categories: 1}
	objs := l.objectsOf(5, []byte("pad"))
	b := objs[len(objs)-1].Append(nil)
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		if _, err := Decode(c); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("a flipped byte %d was not caught: %v", i, err)
		}
	}
	if _, err := Decode(b[:len(b)-1]); err == nil {
		t.Fatal("a short record decoded")
	}
	// Another object's record under this oid is caught by valid.
	room, _ := Decode(objs[len(objs)-2].Append(nil))
	if err := l.valid(l.conference(5), room); err == nil {
		t.Fatal("a room was accepted as the conference")
	}
}

func TestLayout(t *testing.T) {
	l := layout{contributions: 10, categories: 100}
	if got := l.conference(85_000); got != 85_000*12 {
		t.Fatalf("conference(85000) = %d", got)
	}
	if l.number(l.conference(77)+5) != 77 {
		t.Fatal("number of a contribution's oid")
	}
	if l.category(250) != categoryBase+50 {
		t.Fatal("category")
	}
}
