package k8s

import (
	"fmt"
	"mime"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// The wire formats, as the real apiserver negotiates them: client-go's
// typed clients send built-in types such as Lease as protobuf
// (application/vnd.kubernetes.protobuf) and accept protobuf or JSON; the
// server decodes what the Content-Type says and answers in the first
// format of Accept it knows (JSON if none), Status objects included.

const (
	mediaJSON     = runtime.ContentTypeJSON
	mediaProtobuf = runtime.ContentTypeProtobuf
)

// statusVersion is the group version metav1.Status is sent in.
var statusVersion = schema.GroupVersion{Version: "v1"}

// serializer returns the codec factory's serializer for a media type.
func serializer(mediaType string) (runtime.SerializerInfo, bool) {
	return runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
}

// decodeLease decodes a Lease sent with contentType.
func decodeLease(contentType string, body []byte) (*coordinationv1.Lease, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = mediaJSON
	}
	info, ok := serializer(mt)
	if !ok {
		return nil, fmt.Errorf("unsupported media type %q", contentType)
	}
	dec := scheme.Codecs.DecoderToVersion(info.Serializer, coordinationv1.SchemeGroupVersion)
	obj, _, err := dec.Decode(body, nil, &coordinationv1.Lease{})
	if err != nil {
		return nil, err
	}
	l, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return nil, fmt.Errorf("decoded a %T, not a Lease", obj)
	}
	return l, nil
}

// negotiate returns the media type to answer an Accept header with.
func negotiate(accept string) string {
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case mediaProtobuf, mediaJSON:
			return mt
		case "*/*", "application/*":
			return mediaJSON
		}
	}
	return mediaJSON
}

// encode encodes obj (a Lease or a metav1.Status) in mediaType.
func encode(mediaType string, obj runtime.Object) ([]byte, error) {
	info, ok := serializer(mediaType)
	if !ok {
		return nil, fmt.Errorf("unsupported media type %q", mediaType)
	}
	gv := coordinationv1.SchemeGroupVersion
	if _, isLease := obj.(*coordinationv1.Lease); !isLease {
		gv = statusVersion
	}
	return runtime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, gv), obj)
}
