//! Attribute macros of causim. Placeholder until the DSL lands.
