// The library re-exports its pure-Swift core, so that its users import one module.
@_exported public import FaceCamCore
