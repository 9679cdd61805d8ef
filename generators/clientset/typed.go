package clientset

import (
	"github.com/dave/jennifer/jen"

	cp "github.com/kubeforge/kubeforge/generators/internal/clientpkg"
	"github.com/kubeforge/kubeforge/generators/model"
)

const autoscalingV1 = "k8s.io/api/autoscaling/v1"

// groupClientFile is typed/<group>/<version>: the group-version's client.
func groupClientFile(p cp.Paths, v *cp.Version) *jen.File {
	f := cp.NewFile(v.Name, p.Typed(v), "Package "+v.Name+" holds the typed clients of "+v.Group.Name+"/"+v.Name+".")
	iface, client := v.Prefix()+"Interface", v.Prefix()+"Client"
	methods := []jen.Code{jen.Id("RESTClient").Params().Qual(cp.Rest, "Interface")}
	for _, k := range v.Kinds {
		methods = append(methods, jen.Id(cp.Plural(k.Name)+"Getter"))
	}
	f.Comment(iface + " has a client per kind of " + v.Group.Name + "/" + v.Name + ".")
	f.Type().Id(iface).Interface(methods...)
	f.Comment(client + " talks to " + v.Group.Name + "/" + v.Name + ".")
	f.Type().Id(client).Struct(jen.Id("restClient").Qual(cp.Rest, "Interface"))
	recv := jen.Id("c").Op("*").Id(client)
	for _, k := range v.Kinds {
		params, args := []jen.Code{}, []jen.Code{jen.Id("c")}
		if k.Namespaced {
			params = append(params, jen.Id("namespace").String())
			args = append(args, jen.Id("namespace"))
		}
		f.Comment(cp.Plural(k.Name) + " returns the client of " + k.Plural + ".")
		f.Func().Params(recv.Clone()).Id(cp.Plural(k.Name)).Params(params...).Id(k.Name + "Interface").Block(
			jen.Return(jen.Id("new" + cp.Plural(k.Name)).Call(args...)))
	}
	cfg := jen.Op("*").Qual(cp.Rest, "Config")
	f.Comment("NewForConfig creates a new " + client + " for the given config.")
	f.Func().Id("NewForConfig").Params(jen.Id("c").Add(cfg)).Params(jen.Op("*").Id(client), jen.Error()).Block(
		jen.Id("config").Op(":=").Op("*").Id("c"),
		jen.Id("setConfigDefaults").Call(jen.Op("&").Id("config")),
		jen.List(jen.Id("httpClient"), jen.Err()).Op(":=").Qual(cp.Rest, "HTTPClientFor").Call(jen.Op("&").Id("config")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("NewForConfigAndClient").Call(jen.Op("&").Id("config"), jen.Id("httpClient"))))
	f.Comment("NewForConfigAndClient creates a new " + client + " for the given config and HTTP client.")
	f.Func().Id("NewForConfigAndClient").Params(jen.Id("c").Add(cfg), jen.Id("h").Op("*").Qual("net/http", "Client")).Params(jen.Op("*").Id(client), jen.Error()).Block(
		jen.Id("config").Op(":=").Op("*").Id("c"),
		jen.Id("setConfigDefaults").Call(jen.Op("&").Id("config")),
		jen.List(jen.Id("rc"), jen.Err()).Op(":=").Qual(cp.Rest, "RESTClientForConfigAndClient").Call(jen.Op("&").Id("config"), jen.Id("h")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(client).Values(jen.Id("rc")), jen.Nil()))
	f.Comment("NewForConfigOrDie creates a new " + client + " for the given config and panics on an error in the config.")
	f.Func().Id("NewForConfigOrDie").Params(jen.Id("c").Add(cfg)).Op("*").Id(client).Block(
		jen.List(jen.Id("client"), jen.Err()).Op(":=").Id("NewForConfig").Call(jen.Id("c")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err())),
		jen.Return(jen.Id("client")))
	f.Comment("New creates a new " + client + " for the given RESTClient.")
	f.Func().Id("New").Params(jen.Id("c").Qual(cp.Rest, "Interface")).Op("*").Id(client).Block(
		jen.Return(jen.Op("&").Id(client).Values(jen.Id("c"))))
	f.Func().Id("setConfigDefaults").Params(jen.Id("config").Add(cfg.Clone())).Block(
		jen.Id("gv").Op(":=").Add(cp.GroupVersion(v)),
		jen.Id("config").Dot("GroupVersion").Op("=").Op("&").Id("gv"),
		jen.Id("config").Dot("APIPath").Op("=").Lit("/apis"),
		jen.Id("config").Dot("NegotiatedSerializer").Op("=").Qual(cp.Rest, "CodecFactoryForGeneratedClient").Call(
			jen.Qual(p.ClientsetScheme(), "Scheme"), jen.Qual(p.ClientsetScheme(), "Codecs")).Dot("WithoutConversion").Call(),
		jen.If(jen.Id("config").Dot("UserAgent").Op("==").Lit("")).Block(
			jen.Id("config").Dot("UserAgent").Op("=").Qual(cp.Rest, "DefaultKubernetesUserAgent").Call()))
	f.Comment("RESTClient returns the RESTClient the typed clients use.")
	f.Func().Params(recv.Clone()).Id("RESTClient").Params().Qual(cp.Rest, "Interface").Block(
		jen.If(jen.Id("c").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("c").Dot("restClient")))
	return f
}

// expansionFile declares the empty <Kind>Expansion interfaces the kind
// interfaces embed; hand-written methods can be added in the same package
// by declaring them on the implementation.
func expansionFile(p cp.Paths, v *cp.Version) *jen.File {
	f := cp.NewFile(v.Name, p.Typed(v), "")
	for _, k := range v.Kinds {
		f.Comment(k.Name + "Expansion allows custom methods to be added to " + k.Name + "Interface.")
		f.Type().Id(k.Name + "Expansion").Interface()
	}
	return f
}

// verbs are the methods of a kind's interface, as client-gen declares
// them: obj and list are the kind and its list, apply its apply
// configuration.
func verbs(k *model.Kind, obj, list, apply jen.Code) []jen.Code {
	ctx := jen.Id("ctx").Qual(cp.Context, "Context")
	o := func(n string) jen.Code { return jen.Qual(cp.Metav1, n) }
	typed := func() *jen.Statement { return jen.Op("*").Add(obj) }
	name := cp.LowerFirst(k.Name)
	var m []jen.Code
	m = append(m, jen.Id("Create").Params(ctx, jen.Id(name).Add(typed()), jen.Id("opts").Add(o("CreateOptions"))).Params(typed(), jen.Error()))
	m = append(m, jen.Id("Update").Params(ctx, jen.Id(name).Add(typed()), jen.Id("opts").Add(o("UpdateOptions"))).Params(typed(), jen.Error()))
	if cp.HasStatus(k) {
		m = append(m, jen.Id("UpdateStatus").Params(ctx, jen.Id(name).Add(typed()), jen.Id("opts").Add(o("UpdateOptions"))).Params(typed(), jen.Error()))
	}
	m = append(m,
		jen.Id("Delete").Params(ctx, jen.Id("name").String(), jen.Id("opts").Add(o("DeleteOptions"))).Error(),
		jen.Id("DeleteCollection").Params(ctx, jen.Id("opts").Add(o("DeleteOptions")), jen.Id("listOpts").Add(o("ListOptions"))).Error(),
		jen.Id("Get").Params(ctx, jen.Id("name").String(), jen.Id("opts").Add(o("GetOptions"))).Params(typed(), jen.Error()),
		jen.Id("List").Params(ctx, jen.Id("opts").Add(o("ListOptions"))).Params(jen.Op("*").Add(list), jen.Error()),
		jen.Id("Watch").Params(ctx, jen.Id("opts").Add(o("ListOptions"))).Params(jen.Qual(cp.Watch, "Interface"), jen.Error()),
		jen.Id("Patch").Params(ctx, jen.Id("name").String(), jen.Id("pt").Qual(cp.Types, "PatchType"), jen.Id("data").Index().Byte(), jen.Id("opts").Add(o("PatchOptions")), jen.Id("subresources").Op("...").String()).Params(jen.Id("result").Add(typed()), jen.Err().Error()),
		jen.Id("Apply").Params(ctx, jen.Id(name).Op("*").Add(apply), jen.Id("opts").Add(o("ApplyOptions"))).Params(jen.Id("result").Add(typed()), jen.Err().Error()),
	)
	if cp.HasStatus(k) {
		m = append(m, jen.Id("ApplyStatus").Params(ctx, jen.Id(name).Op("*").Add(apply), jen.Id("opts").Add(o("ApplyOptions"))).Params(jen.Id("result").Add(typed()), jen.Err().Error()))
	}
	if k.Scale != nil {
		scale := func() *jen.Statement { return jen.Op("*").Qual(autoscalingV1, "Scale") }
		m = append(m,
			jen.Id("GetScale").Params(ctx, jen.Id(name+"Name").String(), jen.Id("options").Add(o("GetOptions"))).Params(jen.Id("result").Add(scale()), jen.Err().Error()),
			jen.Id("UpdateScale").Params(ctx, jen.Id(name+"Name").String(), jen.Id("scale").Add(scale()), jen.Id("opts").Add(o("UpdateOptions"))).Params(jen.Id("result").Add(scale()), jen.Err().Error()),
		)
	}
	return m
}

// kindFile is one kind's typed client: <Plural>Getter, <Kind>Interface and
// the implementation on gentype.ClientWithListAndApply.
func kindFile(p cp.Paths, v *cp.Version, k *model.Kind) *jen.File {
	f := cp.NewFile(v.Name, p.Typed(v), "")
	cp.ImportTypes(f, v)
	f.ImportAlias(p.Apply(v), cp.Alias("apply", v))
	obj, list := jen.Qual(k.Version.Package, k.Name), jen.Qual(k.Version.Package, k.ListName)
	apply := jen.Qual(p.Apply(v), cp.ApplyName(k.Name))
	plural := cp.Plural(k.Name)
	getterParams := []jen.Code{}
	if k.Namespaced {
		getterParams = append(getterParams, jen.Id("namespace").String())
	}
	f.Comment(plural + "Getter has a method to return a " + k.Name + "Interface.")
	f.Type().Id(plural + "Getter").Interface(jen.Id(plural).Params(getterParams...).Id(k.Name + "Interface"))
	methods := append(verbs(k, obj.Clone(), list.Clone(), apply.Clone()), jen.Id(k.Name+"Expansion"))
	f.Comment(k.Name + "Interface has methods to work with " + k.Name + " resources.")
	f.Type().Id(k.Name + "Interface").Interface(methods...)

	impl := cp.LowerFirst(plural)
	generic := jen.Qual(cp.Gentype, "ClientWithListAndApply").Types(jen.Op("*").Add(obj.Clone()), jen.Op("*").Add(list.Clone()), jen.Op("*").Add(apply.Clone()))
	f.Comment(impl + " implements " + k.Name + "Interface.")
	f.Type().Id(impl).Struct(jen.Op("*").Add(generic))
	ns := jen.Lit("")
	params := []jen.Code{jen.Id("c").Op("*").Id(v.Prefix() + "Client")}
	if k.Namespaced {
		ns = jen.Id("namespace")
		params = append(params, jen.Id("namespace").String())
	}
	f.Func().Id("new" + plural).Params(params...).Op("*").Id(impl).Block(
		jen.Return(jen.Op("&").Id(impl).Values(
			jen.Qual(cp.Gentype, "NewClientWithListAndApply").Types(jen.Op("*").Add(obj.Clone()), jen.Op("*").Add(list.Clone()), jen.Op("*").Add(apply.Clone())).Add(cp.Args(
				jen.Lit(k.Plural),
				jen.Id("c").Dot("RESTClient").Call(),
				jen.Qual(p.ClientsetScheme(), "ParameterCodec"),
				ns,
				jen.Func().Params().Op("*").Add(obj.Clone()).Block(jen.Return(jen.Op("&").Add(obj.Clone()).Values())),
				jen.Func().Params().Op("*").Add(list.Clone()).Block(jen.Return(jen.Op("&").Add(list.Clone()).Values())),
			)))))
	if k.Scale != nil {
		scaleMethods(f, p, k, impl)
	}
	return f
}

// scaleMethods writes GetScale and UpdateScale, requests to <plural>/scale
// with autoscaling/v1 Scale bodies.
func scaleMethods(f *jen.File, p cp.Paths, k *model.Kind, impl string) {
	recv := jen.Id("c").Op("*").Id(impl)
	req := func(verb string) *jen.Statement {
		s := jen.Id("c").Dot("GetClient").Call().Dot(verb).Call()
		if k.Namespaced {
			s = s.Dot("Namespace").Call(jen.Id("c").Dot("GetNamespace").Call())
		}
		return s.Dot("Resource").Call(jen.Lit(k.Plural)).Dot("Name").Call(jen.Id("name")).Dot("SubResource").Call(jen.Lit("scale"))
	}
	scale := func() *jen.Statement { return jen.Op("*").Qual(autoscalingV1, "Scale") }
	ctx := jen.Id("ctx").Qual(cp.Context, "Context")
	f.Comment("GetScale reads the scale subresource of the named " + k.Name + ".")
	f.Func().Params(recv.Clone()).Id("GetScale").Params(ctx.Clone(), jen.Id("name").String(), jen.Id("options").Qual(cp.Metav1, "GetOptions")).Params(jen.Id("result").Add(scale()), jen.Err().Error()).Block(
		jen.Id("result").Op("=").Op("&").Qual(autoscalingV1, "Scale").Values(),
		jen.Err().Op("=").Add(req("Get")).Dot("VersionedParams").Call(jen.Op("&").Id("options"), jen.Qual(p.ClientsetScheme(), "ParameterCodec")).Dot("Do").Call(jen.Id("ctx")).Dot("Into").Call(jen.Id("result")),
		jen.Return())
	f.Comment("UpdateScale replaces the scale subresource of the named " + k.Name + ".")
	f.Func().Params(recv.Clone()).Id("UpdateScale").Params(ctx.Clone(), jen.Id("name").String(), jen.Id("scale").Add(scale()), jen.Id("opts").Qual(cp.Metav1, "UpdateOptions")).Params(jen.Id("result").Add(scale()), jen.Err().Error()).Block(
		jen.Id("result").Op("=").Op("&").Qual(autoscalingV1, "Scale").Values(),
		jen.Err().Op("=").Add(req("Put")).Dot("VersionedParams").Call(jen.Op("&").Id("opts"), jen.Qual(p.ClientsetScheme(), "ParameterCodec")).Dot("Body").Call(jen.Id("scale")).Dot("Do").Call(jen.Id("ctx")).Dot("Into").Call(jen.Id("result")),
		jen.Return())
}
