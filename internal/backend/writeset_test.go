package backend

import (
	"slices"
	"testing"
)

// TestWriteSet: the last write of each key wins, the keys stay in the
// order first written, a delete is a write.
func TestWriteSet(t *testing.T) {
	var s WriteSet
	if s.Len() != 0 || s.Keys() != nil {
		t.Fatal("the zero value is not empty")
	}
	s.Put("b", []byte("1"))
	s.Put("a", []byte("2"))
	s.Delete("b")
	s.Put("c", []byte("3"))
	s.Put("a", []byte("4"))
	if !slices.Equal(s.Keys(), []string{"b", "a", "c"}) || s.Len() != 3 {
		t.Fatalf("keys %v", s.Keys())
	}
	if w, ok := s.Get("b"); !ok || !w.Delete {
		t.Errorf("b: %+v %v, want deleted", w, ok)
	}
	if w, ok := s.Get("a"); !ok || w.Delete || string(w.Value) != "4" {
		t.Errorf("a: %+v %v, want 4", w, ok)
	}
	if _, ok := s.Get("z"); ok {
		t.Error("z was never written")
	}
}
