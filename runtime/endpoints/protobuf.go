package endpoints

import (
	"bytes"
	"fmt"
	"mime"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// MediaTypeProtobuf is Kubernetes' protobuf encoding. client-go's typed
// clients for k8s.io/api kinds (kubectl create namespace, for one) send
// request bodies in it; kinds whose Go types carry generated protobuf
// (Unmarshal) methods accept it on create, update and delete. Responses
// are always JSON or YAML: those clients accept JSON too.
const MediaTypeProtobuf = "application/vnd.kubernetes.protobuf"

// protobufMagic prefixes every Kubernetes protobuf body.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

type protoUnmarshaler interface {
	Unmarshal(data []byte) error
}

// isProtobuf reports whether a Content-Type is Kubernetes protobuf.
func isProtobuf(contentType string) bool {
	if contentType == "" {
		return false
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == MediaTypeProtobuf
}

// decodeProtobuf decodes a Kubernetes protobuf body (magic, then a
// runtime.Unknown envelope holding the object) into obj and returns the
// group-version-kind the envelope names. Types without protobuf support
// are a 415.
func decodeProtobuf(body []byte, obj any, what string) (schema.GroupVersionKind, error) {
	u, ok := obj.(protoUnmarshaler)
	if !ok {
		return schema.GroupVersionKind{}, unsupportedMediaType(supportedInputTypes)
	}
	if !bytes.HasPrefix(body, protobufMagic) {
		return schema.GroupVersionKind{}, apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: protobuf body without the k8s prefix", what))
	}
	var unk runtime.Unknown
	if err := unk.Unmarshal(body[len(protobufMagic):]); err != nil {
		return schema.GroupVersionKind{}, apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: %v", what, err))
	}
	if unk.ContentEncoding != "" {
		return schema.GroupVersionKind{}, apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: unsupported content encoding %q", what, unk.ContentEncoding))
	}
	if err := u.Unmarshal(unk.Raw); err != nil {
		return schema.GroupVersionKind{}, apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: %v", what, err))
	}
	return schema.FromAPIVersionAndKind(unk.APIVersion, unk.Kind), nil
}
