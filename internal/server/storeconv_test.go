package server

import (
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	limenv1 "github.com/limenhq/limen/proto/limen/v1"
	"github.com/limenhq/limen/store/storev1"
)

// fill sets every field of m, nested messages and lists included, to a
// value that differs from its zero and from the other fields'.
func fill(m protoreflect.Message, n *int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() {
			l := m.Mutable(fd).List()
			for range 2 {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					fill(e.Message(), n)
					l.Append(e)
				} else {
					l.Append(scalar(fd, n))
				}
			}
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			fill(m.Mutable(fd).Message(), n)
			continue
		}
		m.Set(fd, scalar(fd, n))
	}
}

func scalar(fd protoreflect.FieldDescriptor, n *int) protoreflect.Value {
	*n++
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(string(fd.Name()) + "-" + string(rune('a'+*n%26)))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(*n) + 0.25)
	case protoreflect.Uint64Kind:
		return protoreflect.ValueOfUint64(uint64(*n))
	case protoreflect.Uint32Kind:
		return protoreflect.ValueOfUint32(uint32(*n))
	case protoreflect.Int64Kind:
		return protoreflect.ValueOfInt64(int64(*n))
	case protoreflect.Int32Kind:
		return protoreflect.ValueOfInt32(int32(*n))
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vs.Get(1 + *n%(vs.Len()-1)).Number()) // never the zero value
	}
	panic("fill: no value for kind " + fd.Kind().String() + " (" + string(fd.FullName()) + "): add one")
}

// zero clears every scalar of m in place, down through its messages.
func zero(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			for i := range v.List().Len() {
				zero(v.List().Get(i).Message())
			}
		case fd.Kind() == protoreflect.MessageKind:
			zero(v.Message())
		default:
			m.Clear(fd)
		}
		return true
	})
}

// TestStoreConversionCopiesEveryField: every field of every API message
// the store keeps survives API → store → API, the store message encodes
// to the bytes the API message decodes from (the wire compatibility that
// lets files written when records were API messages read as they are),
// and the store's copy shares nothing with the message it came from.
func TestStoreConversionCopiesEveryField(t *testing.T) {
	for _, tc := range []struct {
		api     proto.Message
		toStore func(proto.Message) proto.Message
		toAPI   func(proto.Message) proto.Message
	}{
		{new(limenv1.Decision),
			func(m proto.Message) proto.Message { return storeDecision(m.(*limenv1.Decision)) },
			func(m proto.Message) proto.Message { return apiDecision(m.(*storev1.Decision)) }},
		{new(limenv1.PendingAsk),
			func(m proto.Message) proto.Message { return storePending(m.(*limenv1.PendingAsk)) },
			func(m proto.Message) proto.Message { return apiPending(m.(*storev1.PendingAsk)) }},
		{new(limenv1.Policy),
			func(m proto.Message) proto.Message { return storePolicy(m.(*limenv1.Policy)) },
			func(m proto.Message) proto.Message { return apiPolicy(m.(*storev1.Policy)) }},
		{new(limenv1.AskOutcome),
			func(m proto.Message) proto.Message { return storeOutcome(m.(*limenv1.AskOutcome)) },
			func(m proto.Message) proto.Message { return apiOutcome(m.(*storev1.AskOutcome)) }},
		{new(limenv1.Action),
			func(m proto.Message) proto.Message { return storeAction(m.(*limenv1.Action)) },
			func(m proto.Message) proto.Message { return apiAction(m.(*storev1.Action)) }},
	} {
		name := string(tc.api.ProtoReflect().Descriptor().Name())
		t.Run(name, func(t *testing.T) {
			n := 0
			fill(tc.api.ProtoReflect(), &n)
			want := proto.Clone(tc.api)

			stored := tc.toStore(tc.api)
			if got := tc.toAPI(stored); !proto.Equal(want, got) {
				t.Errorf("API → store → API lost fields:\n got %v\nwant %v", prototext.Format(got), prototext.Format(want))
			}
			b, err := proto.Marshal(stored)
			if err != nil {
				t.Fatal(err)
			}
			fromWire := want.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(b, fromWire); err != nil {
				t.Fatal(err)
			}
			if got := fromWire; !proto.Equal(want, got) {
				t.Errorf("the store's bytes decode as another API message:\n got %v\nwant %v", prototext.Format(got), prototext.Format(want))
			}
			b, err = proto.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			fromOld := stored.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(b, fromOld); err != nil {
				t.Fatal(err)
			}
			if got := fromOld; !proto.Equal(stored, got) {
				t.Errorf("the API message's bytes decode as another store message:\n got %v\nwant %v", prototext.Format(got), prototext.Format(stored))
			}

			zero(stored.ProtoReflect())
			if got := tc.api; !proto.Equal(want, got) {
				t.Errorf("clearing the store's copy changed the API message:\n got %v\nwant %v", prototext.Format(got), prototext.Format(want))
			}
		})
	}
	for _, m := range []proto.Message{storeDecision(nil), storePending(nil), storePolicy(nil), storeOutcome(nil), storeAction(nil)} {
		if m.ProtoReflect().IsValid() {
			t.Errorf("%T of nil is not nil: the store tells an unset outcome from an empty one", m)
		}
	}
}

// TestStoreEnumsMatchTheAPI: the conversions cast enums by number, which
// is right only while every API value has the same number and name in the
// store's enum.
func TestStoreEnumsMatchTheAPI(t *testing.T) {
	for _, pair := range [][2]protoreflect.EnumDescriptor{
		{limenv1.Verdict(0).Descriptor(), storev1.Verdict(0).Descriptor()},
		{limenv1.Decider(0).Descriptor(), storev1.Decider(0).Descriptor()},
		{limenv1.Choice(0).Descriptor(), storev1.Choice(0).Descriptor()},
		{limenv1.Scope(0).Descriptor(), storev1.Scope(0).Descriptor()},
		{limenv1.AskState(0).Descriptor(), storev1.AskState(0).Descriptor()},
	} {
		api, st := pair[0], pair[1]
		for i := range api.Values().Len() {
			v := api.Values().Get(i)
			got := st.Values().ByNumber(v.Number())
			if got == nil || got.Name() != v.Name() {
				t.Errorf("%s = %d has no value of the same name in %s: add it to proto/limen/store/v1/store.proto", v.FullName(), v.Number(), st.FullName())
			}
		}
	}
}
