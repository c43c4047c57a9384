//! Snapshots of the expansion of `#[model]`, pretty-printed with
//! prettyplease, so that a change in the generated code shows up in review;
//! and the check that `docs/macros.md` shows one of them as it is.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;

/// Expands the struct half and the impl half, and pretty-prints both.
fn expand_model(item_struct: TokenStream, item_impl: TokenStream) -> String {
    let mut out = expand::model(TokenStream::new(), item_struct);
    out.extend(expand::model(TokenStream::new(), item_impl));
    pretty(out)
}

/// Snapshots `expansion` as `name`, without insta's `expression:` header,
/// which would hold the `quote!` input as an unreadable one-line token dump
/// (the input is in the calling test, formatted).
fn assert_expansion(name: &str, expansion: String) {
    insta::with_settings!({ omit_expression => true }, {
        insta::assert_snapshot!(name, expansion);
    });
}

/// The tokens as a formatted Rust file.
fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens.clone())
        .unwrap_or_else(|e| panic!("expansion does not parse: {e}\n{tokens}"));
    prettyplease::unparse(&file)
}

#[test]
fn minimal() {
    assert_expansion(
        "minimal",
        expand_model(
            quote! {
                pub struct Counter {
                    count: u64,
                }
            },
            quote! {
                impl Counter {
                    #[input]
                    pub fn add(&mut self, n: u64) {
                        self.count += n;
                    }
                }
            },
        ),
    );
}

#[test]
fn sync_and_async_inputs() {
    assert_expansion(
        "sync_and_async_inputs",
        expand_model(
            quote! {
                pub struct Relay {
                    pub out: Output<u64>,
                    last: u64,
                }
            },
            quote! {
                impl Relay {
                    #[input]
                    pub fn store(&mut self, value: u64) {
                        self.last = value;
                    }

                    #[input]
                    pub async fn forward(&mut self, value: u64) {
                        self.out.send(value).await;
                    }

                    #[input]
                    pub async fn repeat(&mut self) {
                        self.out.send(self.last).await;
                    }

                    fn helper(&self) -> u64 {
                        self.last
                    }
                }
            },
        ),
    );
}

#[test]
fn repliers() {
    assert_expansion(
        "repliers",
        expand_model(
            quote! {
                pub struct Sensor {
                    celsius: f64,
                }
            },
            quote! {
                impl Sensor {
                    #[replier]
                    pub fn temperature(&mut self, _: ()) -> f64 {
                        self.celsius
                    }

                    #[replier]
                    pub async fn scaled(&mut self, factor: f64) -> f64 {
                        self.celsius * factor
                    }

                    #[replier]
                    pub fn name(&mut self) -> String {
                        "sensor".to_owned()
                    }
                }
            },
        ),
    );
}

#[test]
fn context_arguments() {
    assert_expansion(
        "context_arguments",
        expand_model(
            quote! {
                pub struct Timer;
            },
            quote! {
                impl Timer {
                    #[input]
                    pub fn arm(&mut self, delay: Duration, cx: &mut Context<Self>) {
                        cx.schedule(delay, Self::ports().ring, ()).unwrap();
                    }

                    #[input]
                    pub async fn ring(&mut self, cx: &mut Context<Self>) {
                        println!("ring at {}", cx.time());
                    }

                    #[replier]
                    pub fn now(&mut self, _: (), cx: &mut Context<Self>) -> SimTime {
                        cx.time()
                    }
                }
            },
        ),
    );
}

#[test]
fn init_hook() {
    assert_expansion(
        "init_hook",
        expand_model(
            quote! {
                pub struct Clock {
                    pub tick: Output<()>,
                }
            },
            quote! {
                impl Clock {
                    #[init]
                    async fn start(&mut self, cx: &mut Context<Self>) {
                        self.tick.send(()).await;
                        cx.schedule(Duration::from_secs(1), Self::ports().tick, ()).unwrap();
                    }

                    #[input]
                    async fn tick(&mut self, cx: &mut Context<Self>) {
                        self.tick.send(()).await;
                        cx.schedule(Duration::from_secs(1), Self::ports().tick, ()).unwrap();
                    }
                }
            },
        ),
    );
}

#[test]
fn generics() {
    assert_expansion(
        "generics",
        expand_model(
            quote! {
                pub struct Buffer<T: Clone + Send + 'static, const N: usize> {
                    pub out: Output<Vec<T>>,
                    items: Vec<T>,
                }
            },
            quote! {
                impl<T: Clone + Send + 'static, const N: usize> Buffer<T, N> {
                    #[input]
                    pub async fn push(&mut self, item: T) {
                        self.items.push(item);
                        if self.items.len() == N {
                            let items = std::mem::take(&mut self.items);
                            self.out.send(items).await;
                        }
                    }

                    #[replier]
                    pub fn len(&mut self) -> usize {
                        self.items.len()
                    }
                }
            },
        ),
    );
}

#[test]
fn required_ports() {
    assert_expansion(
        "required_ports",
        expand_model(
            quote! {
                pub struct Thermostat {
                    #[required]
                    pub heater: Output<bool>,
                    #[required]
                    pub read_temp: Requestor<(), f64>,
                    pub log: Output<String>,
                    setpoint: f64,
                }
            },
            quote! {
                impl Thermostat {
                    #[input]
                    pub async fn tick(&mut self) {
                        let t = self.read_temp.send(()).await.next().unwrap_or(f64::NAN);
                        self.heater.send(t < self.setpoint).await;
                    }
                }
            },
        ),
    );
}

#[test]
fn uni_requestor_fields() {
    // A `UniRequestor` is a sending port: in the metadata as a requestor,
    // listed for the topology; `#[required]` on it is accepted.
    assert_expansion(
        "uni_requestor_fields",
        expand_model(
            quote! {
                pub struct Poller {
                    #[required]
                    probe: causim::UniRequestor<u8, f64>,
                    last: f64,
                }
            },
            quote! {
                impl Poller {
                    #[input]
                    pub async fn poll(&mut self, channel: u8) {
                        self.last = self.probe.send(channel).await;
                    }
                }
            },
        ),
    );
}

#[test]
fn errors_are_collected() {
    // Several mistakes, all reported at once; the valid port is still
    // generated, so that uses of it do not fail too.
    let out = expand::model(
        TokenStream::new(),
        quote! {
            impl Broken {
                #[input]
                fn shared(&self, x: u32) {}
                #[input]
                fn two(&mut self, a: u32, b: u32) {}
                #[replier]
                fn silent(&mut self, x: u32) {}
                #[input]
                fn fine(&mut self, x: u32) {}
            }
        },
    );
    let text = out.to_string();
    assert_eq!(text.matches("compile_error").count(), 3, "{text}");
    assert!(text.contains("fine : :: causim :: InputPort"), "{text}");
    assert!(!text.contains("shared : :: causim :: InputPort"), "{text}");
}

#[test]
fn type_names_read_like_source() {
    use crate::names::type_name;
    let ty: syn::Type = syn::parse_quote!(Vec<(u8, &'static str)>);
    assert_eq!(type_name(&ty), "Vec<(u8, &'static str)>");
    let ty: syn::Type = syn::parse_quote!(Box<dyn Fn(u8) -> u8 + Send>);
    assert_eq!(type_name(&ty), "Box<dyn Fn(u8) -> u8 + Send>");
    let ty: syn::Type = syn::parse_quote!(std::collections::HashMap<String, [u8; 4]>);
    assert_eq!(type_name(&ty), "std::collections::HashMap<String, [u8; 4]>");
}

/// The model of `docs/macros.md`, whose expansion is shown there: the struct
/// half and the impl half.
fn docs_model() -> (TokenStream, TokenStream) {
    let item_struct = quote! {
        pub struct Thermostat {
            #[required]
            pub heater: Output<bool>,
            pub read_temp: Requestor<(), f64>,
            setpoint: f64,
        }
    };
    let item_impl = quote! {
        impl Thermostat {
            #[init]
            async fn start(&mut self, cx: &mut Context<Self>) {
                cx.schedule(Duration::from_secs(1), Self::ports().tick, ()).unwrap();
            }

            #[input]
            pub fn set_point(&mut self, celsius: f64) {
                self.setpoint = celsius;
            }

            #[input]
            pub async fn tick(&mut self, cx: &mut Context<Self>) {
                let t = self.read_temp.send(()).await.next().unwrap_or(f64::NAN);
                self.heater.send(t < self.setpoint).await;
                cx.schedule(Duration::from_secs(1), Self::ports().tick, ()).unwrap();
            }

            #[replier]
            pub fn setpoint(&mut self, _: ()) -> f64 {
                self.setpoint
            }

            fn helper(&self) {}
        }
    };
    (item_struct, item_impl)
}

#[test]
fn docs_example() {
    let (item_struct, item_impl) = docs_model();
    assert_expansion("docs_example", expand_model(item_struct, item_impl));
}

// `docs/macros.md` shows the model of `docs_model` ("## The model") and its
// expansion ("## The expansion"), which is the `docs_example` snapshot. The
// two tests below keep them equal. After a change to the generated code:
//
// 1. `INSTA_UPDATE=always cargo test -p causim-macros` rewrites
//    `snapshots/causim_macros__tests__docs_example.snap` (or use
//    `cargo insta review`, if installed); review it with `git diff`;
// 2. copy the snapshot's body (everything after its second `---` line) over
//    the ```` ```rust ```` block under "## The expansion" in `docs/macros.md`.
//
// After a change to the model, change `docs_model` and the block under
// "## The model" alike (comments there are free: they are not tokens), then
// do the two steps above.

/// The `docs/macros.md` page.
fn docs_page() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/macros.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The body of the first ```` ```rust ```` block after the heading
/// `heading` in the page `docs`, each line with its newline.
fn rust_block_after(docs: &str, heading: &str) -> String {
    let mut lines = docs
        .lines()
        .skip_while(|line| *line != heading)
        .skip_while(|line| *line != "```rust");
    assert_eq!(
        lines.next(),
        Some("```rust"),
        "docs/macros.md has no ```rust block after `{heading}`"
    );
    lines
        .take_while(|line| *line != "```")
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The body of a snapshot file: what follows its `---` header.
fn snapshot_body(snapshot: &str) -> &str {
    snapshot
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_header, body)| body)
        .unwrap_or_else(|| panic!("not an insta snapshot:\n{snapshot}"))
}

#[test]
fn docs_show_the_expansion_snapshot() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/snapshots/causim_macros__tests__docs_example.snap"
    );
    let snapshot =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let shown = rust_block_after(&docs_page(), "## The expansion");
    assert_eq!(
        shown,
        snapshot_body(&snapshot),
        "the expansion in docs/macros.md differs from {path}: copy the snapshot's body there \
         (steps in the comment before `docs_page` in macros/src/tests.rs)"
    );
}

#[test]
fn docs_show_the_snapshotted_model() {
    let shown = rust_block_after(&docs_page(), "## The model");
    let file: syn::File = syn::parse_str(&shown).expect("the model in docs/macros.md parses");
    // The page's items, without the `use` line and the `#[model]` marks.
    let mut shown_items = TokenStream::new();
    for mut item in file.items {
        match &mut item {
            syn::Item::Use(_) => continue,
            syn::Item::Struct(item) => item.attrs.retain(|a| !a.path().is_ident("model")),
            syn::Item::Impl(item) => item.attrs.retain(|a| !a.path().is_ident("model")),
            _ => {}
        }
        quote::ToTokens::to_tokens(&item, &mut shown_items);
    }
    let (item_struct, item_impl) = docs_model();
    assert_eq!(
        shown_items.to_string(),
        quote!(#item_struct #item_impl).to_string(),
        "the model in docs/macros.md differs from `docs_model` in macros/src/tests.rs \
         (steps in the comment before `docs_page`)"
    );
}

#[test]
fn saveable() {
    let item_struct = quote! {
        pub struct Battery {
            #[required]
            pub voltage: Output<f64>,
            charge_wh: f64,
            timeout: Option<EventKey>,
            #[transient]
            spec: Spec,
        }
    };
    let item_impl = quote! {
        impl Battery {
            #[input]
            pub fn charge(&mut self, wh: f64) {
                self.charge_wh += wh;
            }

            #[input]
            pub async fn sample(&mut self) {
                self.voltage.send(self.spec.volts(self.charge_wh)).await;
            }

            #[replier]
            pub fn level(&mut self) -> f64 {
                self.charge_wh
            }
        }
    };
    let mut out = expand::model(quote!(save(version = 2)), item_struct);
    out.extend(expand::model(quote!(save), item_impl));
    assert_expansion("saveable", pretty(out));
}
