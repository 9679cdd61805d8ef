// Package clientset generates the versioned clientset under
// generated/clientset/versioned: one typed client per group-version on
// client-go's generic clients (k8s.io/client-go/gentype), its scheme
// package, and the fake clientset over client-go's object tracker, with the
// exported API code-generator's client-gen writes (see README, "Go
// clients").
package clientset

import (
	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/genall"
	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Generator writes the clientset.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "clientset" }

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	groups, err := cp.Groups(api)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, nil
	}
	p := cp.For(api)
	versions := cp.Versions(groups)
	var files []genall.File
	add := func(f *jen.File, path, what string) error {
		out, err := cp.Render(f, p.Dir(api, path), what)
		if err != nil {
			return err
		}
		files = append(files, out)
		return nil
	}
	if err := add(clientsetFile(p, versions), p.Clientset(), "clientset"); err != nil {
		return nil, err
	}
	if err := add(schemeFile(p, versions), p.ClientsetScheme(), "register"); err != nil {
		return nil, err
	}
	if err := add(fakeClientsetFile(p, versions), p.ClientsetFake(), "clientset"); err != nil {
		return nil, err
	}
	if err := add(fakeRegisterFile(p, versions), p.ClientsetFake(), "register"); err != nil {
		return nil, err
	}
	for _, v := range versions {
		if err := add(groupClientFile(p, v), p.Typed(v), "client"); err != nil {
			return nil, err
		}
		if err := add(expansionFile(p, v), p.Typed(v), "expansion"); err != nil {
			return nil, err
		}
		if err := add(fakeGroupClientFile(p, v), p.TypedFake(v), "client"); err != nil {
			return nil, err
		}
		for _, k := range v.Kinds {
			if err := add(kindFile(p, v, k), p.Typed(v), lower(k.Name)); err != nil {
				return nil, err
			}
			if err := add(fakeKindFile(p, v, k), p.TypedFake(v), lower(k.Name)); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// clientsetFile is generated/clientset/versioned: Interface, Clientset and
// its constructors.
func clientsetFile(p cp.Paths, versions []*cp.Version) *jen.File {
	f := cp.NewFile("versioned", p.Clientset(), "Package versioned is the typed clientset of every group-version of this module's types.")
	for _, v := range versions {
		f.ImportAlias(p.Typed(v), cp.Alias("", v))
	}
	disc := "k8s.io/client-go/discovery"
	var methods, fields []jen.Code
	methods = append(methods, jen.Id("Discovery").Params().Qual(disc, "DiscoveryInterfaces"))
	fields = append(fields, jen.Op("*").Qual(disc, "DiscoveryClient"))
	for _, v := range versions {
		methods = append(methods, jen.Id(v.Prefix()).Params().Qual(p.Typed(v), v.Prefix()+"Interface"))
		fields = append(fields, jen.Id(cp.LowerFirst(v.Prefix())).Op("*").Qual(p.Typed(v), v.Prefix()+"Client"))
	}
	f.Comment("Interface is the clientset: one typed client per group-version, and discovery.")
	f.Type().Id("Interface").Interface(methods...)
	f.Comment("Clientset contains the clients for groups.")
	f.Type().Id("Clientset").Struct(fields...)
	for _, v := range versions {
		f.Comment(v.Prefix() + " retrieves the " + v.Prefix() + "Client.")
		f.Func().Params(jen.Id("c").Op("*").Id("Clientset")).Id(v.Prefix()).Params().Qual(p.Typed(v), v.Prefix()+"Interface").Block(
			jen.Return(jen.Id("c").Dot(cp.LowerFirst(v.Prefix()))))
	}
	f.Comment("Discovery retrieves the DiscoveryClient.")
	f.Func().Params(jen.Id("c").Op("*").Id("Clientset")).Id("Discovery").Params().Qual(disc, "DiscoveryInterfaces").Block(
		jen.If(jen.Id("c").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("c").Dot("DiscoveryClient")))

	cfg := jen.Op("*").Qual(cp.Rest, "Config")
	f.Comment("NewForConfig creates a new Clientset for the given config; the clients share one HTTP client.")
	f.Func().Id("NewForConfig").Params(jen.Id("c").Add(cfg)).Params(jen.Op("*").Id("Clientset"), jen.Error()).Block(
		jen.Id("config").Op(":=").Op("*").Id("c"),
		jen.If(jen.Id("config").Dot("UserAgent").Op("==").Lit("")).Block(
			jen.Id("config").Dot("UserAgent").Op("=").Qual(cp.Rest, "DefaultKubernetesUserAgent").Call()),
		jen.List(jen.Id("httpClient"), jen.Err()).Op(":=").Qual(cp.Rest, "HTTPClientFor").Call(jen.Op("&").Id("config")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("NewForConfigAndClient").Call(jen.Op("&").Id("config"), jen.Id("httpClient"))),
	)
	body := []jen.Code{
		jen.Id("config").Op(":=").Op("*").Id("c"),
		jen.If(jen.Id("config").Dot("RateLimiter").Op("==").Nil().Op("&&").Id("config").Dot("QPS").Op(">").Lit(0)).Block(
			jen.If(jen.Id("config").Dot("Burst").Op("<=").Lit(0)).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")))),
			jen.Id("config").Dot("RateLimiter").Op("=").Qual("k8s.io/client-go/util/flowcontrol", "NewTokenBucketRateLimiter").Call(jen.Id("config").Dot("QPS"), jen.Id("config").Dot("Burst")),
		),
		jen.Var().Id("cs").Id("Clientset"),
		jen.Var().Err().Error(),
	}
	for _, v := range versions {
		body = append(body,
			jen.List(jen.Id("cs").Dot(cp.LowerFirst(v.Prefix())), jen.Err()).Op("=").Qual(p.Typed(v), "NewForConfigAndClient").Call(jen.Op("&").Id("config"), jen.Id("httpClient")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	body = append(body,
		jen.List(jen.Id("cs").Dot("DiscoveryClient"), jen.Err()).Op("=").Qual(disc, "NewDiscoveryClientForConfigAndClient").Call(jen.Op("&").Id("config"), jen.Id("httpClient")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("cs"), jen.Nil()))
	f.Comment("NewForConfigAndClient creates a new Clientset for the given config and HTTP client.")
	f.Func().Id("NewForConfigAndClient").Params(jen.Id("c").Add(cfg), jen.Id("httpClient").Op("*").Qual("net/http", "Client")).Params(jen.Op("*").Id("Clientset"), jen.Error()).Block(body...)
	f.Comment("NewForConfigOrDie creates a new Clientset for the given config and panics on an error in the config.")
	f.Func().Id("NewForConfigOrDie").Params(jen.Id("c").Add(cfg)).Op("*").Id("Clientset").Block(
		jen.List(jen.Id("cs"), jen.Err()).Op(":=").Id("NewForConfig").Call(jen.Id("c")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err())),
		jen.Return(jen.Id("cs")))
	newBody := []jen.Code{jen.Var().Id("cs").Id("Clientset")}
	for _, v := range versions {
		newBody = append(newBody, jen.Id("cs").Dot(cp.LowerFirst(v.Prefix())).Op("=").Qual(p.Typed(v), "New").Call(jen.Id("c")))
	}
	newBody = append(newBody,
		jen.Id("cs").Dot("DiscoveryClient").Op("=").Qual(disc, "NewDiscoveryClient").Call(jen.Id("c")),
		jen.Return(jen.Op("&").Id("cs")))
	f.Comment("New creates a new Clientset for the given RESTClient.")
	f.Func().Id("New").Params(jen.Id("c").Qual(cp.Rest, "Interface")).Op("*").Id("Clientset").Block(newBody...)
	return f
}
