//! A layered layout that keeps composites together, for the SVG export.
//!
//! Each composite is laid out on its own, innermost first, as one block
//! holding its models and sub-composites; the block is then placed in its
//! parent like a model. Within a block, the items are put in columns by
//! the flow of the connections between them (an item's column is the
//! longest chain of connections leading to it, cycles broken where a
//! depth-first walk meets them), ordered in each column by the average
//! row of their predecessors, so that connections run left to right and
//! cross little. A connection between two blocks counts, in their common
//! parent, as one between the blocks.
//!
//! It is deliberately simple — no edge routing, no crossing minimisation
//! beyond the averages — and deterministic: a bench gives the same picture
//! on every run. Text is measured as monospace at [`FONT_SIZE`], which the
//! renderer uses, so boxes fit their labels without a font engine.

use std::collections::HashMap;

use crate::topology::graph::{Endpoint, Members, ModelNode, Topology};

/// The font size of every label, in pixels.
pub(super) const FONT_SIZE: f64 = 11.0;
/// The width of one character of the monospace font, in pixels.
const CHAR_WIDTH: f64 = FONT_SIZE * 0.6;
/// The height of a model's header (its name and type).
pub(super) const HEADER: f64 = 36.0;
/// The height of one port row.
pub(super) const ROW: f64 = 16.0;
/// Space around the contents of a composite, and around the whole picture.
const PAD: f64 = 14.0;
/// The height of a composite's title.
const TITLE: f64 = 20.0;
/// Horizontal space between two columns, for the connections.
const GAP_X: f64 = 56.0;
/// Vertical space between two items of a column.
const GAP_Y: f64 = 18.0;

/// Something laid out: a leaf of the picture or a composite's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Item {
    /// A composite (index in `Topology::composites`).
    Composite(usize),
    /// A model.
    Model(usize),
    /// A source.
    Source(usize),
    /// A sink.
    Sink(usize),
    /// A model not in the bench (index in `Topology::unbound_models`).
    Unbound(usize),
}

/// A rectangle, in pixels from the picture's top left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    /// Left edge.
    pub(crate) x: f64,
    /// Top edge.
    pub(crate) y: f64,
    /// Width.
    pub(crate) w: f64,
    /// Height.
    pub(crate) h: f64,
}

impl Rect {
    /// True if `other` lies inside this rectangle.
    #[cfg(test)]
    pub(crate) fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.x + other.w <= self.x + self.w
            && other.y + other.h <= self.y + self.h
    }

    /// True if the two rectangles share some area.
    #[cfg(test)]
    pub(crate) fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }
}

/// Where everything is.
#[derive(Debug)]
pub(crate) struct Layout {
    /// The picture's width.
    pub(crate) width: f64,
    /// The picture's height.
    pub(crate) height: f64,
    /// Each item's box.
    pub(crate) boxes: HashMap<Item, Rect>,
}

/// A block laid out on its own: its size and its items' places in it.
struct Block {
    /// Width.
    w: f64,
    /// Height.
    h: f64,
    /// Each item's top left corner, relative to the block's.
    places: Vec<(Item, f64, f64)>,
}

/// Lays out `topology`.
pub(crate) fn layout(topology: &Topology) -> Layout {
    let mut layouter = Layouter {
        topology,
        unbound: topology.unbound_models(),
        members: Members::of(topology),
        edges: HashMap::new(),
        blocks: HashMap::new(),
    };
    layouter.file_edges();
    let root = layouter.block(None);
    let mut boxes = HashMap::new();
    layouter.place(&root, PAD, PAD, &mut boxes);
    Layout {
        width: root.w + 2.0 * PAD,
        height: root.h + 2.0 * PAD,
        boxes,
    }
}

/// The state of a layout.
struct Layouter<'a> {
    /// What is laid out.
    topology: &'a Topology,
    /// The models not in the bench.
    unbound: Vec<&'static str>,
    /// What each cluster holds.
    members: Members,
    /// The connections between the items of each cluster: each connection
    /// counts in the innermost cluster holding both its ends, between the
    /// items of that cluster that hold them.
    edges: HashMap<Option<usize>, Vec<(Item, Item)>>,
    /// The composites' blocks, laid out so far.
    blocks: HashMap<usize, Block>,
}

impl Layouter<'_> {
    /// Lays out the contents of `cluster` (`None`: the whole bench).
    fn block(&mut self, cluster: Option<usize>) -> Block {
        let items = self.members(cluster);
        for item in &items {
            if let Item::Composite(c) = *item {
                let block = self.block(Some(c));
                self.blocks.insert(c, block);
            }
        }
        let sizes: Vec<(f64, f64)> = items.iter().map(|&item| self.size(item)).collect();
        let edges = self.edges(cluster, &items);
        let columns = order_columns(&ranks(items.len(), &edges), &edges);
        let (inner, places) = place_columns(&columns, &sizes);
        let (left, top) = match cluster {
            Some(_) => (PAD, PAD + TITLE),
            None => (0.0, 0.0),
        };
        let (w, h) = match cluster {
            Some(_) => (inner.0 + 2.0 * PAD, inner.1 + 2.0 * PAD + TITLE),
            None => inner,
        };
        Block {
            w,
            h,
            places: places
                .into_iter()
                .map(|(i, x, y)| (items[i], x + left, y + top))
                .collect(),
        }
    }

    /// The items directly in `cluster`, in the topology's order.
    fn members(&self, cluster: Option<usize>) -> Vec<Item> {
        let t = self.topology;
        let composites = self.members.composites(cluster).iter();
        let models = self.members.models(cluster).iter();
        let mut items: Vec<Item> = composites.map(|&c| Item::Composite(c)).collect();
        items.extend(models.map(|&m| Item::Model(m)));
        if cluster.is_none() {
            items.extend((0..t.sources.len()).map(Item::Source));
            items.extend((0..t.sinks.len()).map(Item::Sink));
            items.extend((0..self.unbound.len()).map(Item::Unbound));
        }
        items
    }

    /// The size of `item` (a composite's block is laid out already).
    fn size(&self, item: Item) -> (f64, f64) {
        let t = self.topology;
        match item {
            Item::Composite(c) => self.blocks.get(&c).map_or((0.0, 0.0), |b| (b.w, b.h)),
            Item::Model(m) => model_size(&t.models[m]),
            Item::Source(s) => {
                let source = &t.sources[s];
                let kind = super::source_type(source.payload, source.reply);
                leaf_size(&source.name, &kind, 12.0)
            }
            Item::Sink(s) => leaf_size(&t.sinks[s].name, t.sinks[s].payload, 0.0),
            Item::Unbound(u) => leaf_size(self.unbound[u], "(not in the bench)", 0.0),
        }
    }

    /// Files each connection under the innermost cluster holding both its
    /// ends (see [`Layouter::edges`]).
    fn file_edges(&mut self) {
        for connection in &self.topology.connections {
            let from = item_of(&self.unbound, connection.from);
            let to = item_of(&self.unbound, connection.to);
            let outer = self.containers(to);
            let Some(&cluster) = self.containers(from).iter().find(|c| outer.contains(c)) else {
                continue;
            };
            if let (Some(from), Some(to)) = (self.lift(from, cluster), self.lift(to, cluster)) {
                if from != to {
                    self.edges.entry(cluster).or_default().push((from, to));
                }
            }
        }
    }

    /// The connections between the items of `cluster`, by index in
    /// `items`.
    fn edges(&self, cluster: Option<usize>, items: &[Item]) -> Vec<(usize, usize)> {
        let index: HashMap<Item, usize> =
            items.iter().enumerate().map(|(i, &it)| (it, i)).collect();
        self.edges.get(&cluster).map_or_else(Vec::new, |edges| {
            edges
                .iter()
                .map(|(from, to)| (index[from], index[to]))
                .collect()
        })
    }

    /// The clusters holding `item`, innermost first, ending with the top
    /// level (`None`).
    fn containers(&self, item: Item) -> Vec<Option<usize>> {
        let mut containers = Vec::new();
        let mut current = self.container(item);
        while let Some(c) = current {
            containers.push(Some(c));
            current = self.topology.composites[c].parent;
        }
        containers.push(None);
        containers
    }

    /// The cluster directly holding `item`.
    fn container(&self, item: Item) -> Option<usize> {
        match item {
            Item::Model(m) => self.topology.models[m].composite,
            Item::Composite(c) => self.topology.composites[c].parent,
            Item::Source(_) | Item::Sink(_) | Item::Unbound(_) => None,
        }
    }

    /// The item directly in `cluster` that holds `item` (itself, or the
    /// composite it is in, at some depth), if `cluster` holds it at all.
    fn lift(&self, item: Item, cluster: Option<usize>) -> Option<Item> {
        let mut current = item;
        loop {
            let parent = self.container(current);
            if parent == cluster {
                return Some(current);
            }
            current = Item::Composite(parent?);
        }
    }

    /// Records the boxes of `block`'s items, its corner at `(x, y)`.
    fn place(&self, block: &Block, x: f64, y: f64, boxes: &mut HashMap<Item, Rect>) {
        for &(item, dx, dy) in &block.places {
            let (w, h) = self.size(item);
            boxes.insert(
                item,
                Rect {
                    x: x + dx,
                    y: y + dy,
                    w,
                    h,
                },
            );
            if let Item::Composite(c) = item {
                if let Some(inner) = self.blocks.get(&c) {
                    self.place(inner, x + dx, y + dy, boxes);
                }
            }
        }
    }
}

/// The leaf `endpoint` is drawn on (`unbound`: the models not in the
/// bench, as `Topology::unbound_models` lists them).
pub(super) fn item_of(unbound: &[&str], endpoint: Endpoint) -> Item {
    match endpoint {
        Endpoint::Port { model, .. } => Item::Model(model),
        Endpoint::Source(s) => Item::Source(s),
        Endpoint::Sink(s) => Item::Sink(s),
        Endpoint::Unbound { type_name, .. } => Item::Unbound(
            unbound
                .iter()
                .position(|&t| t == type_name)
                .unwrap_or_default(),
        ),
    }
}

/// The width of `text` in the monospace font.
pub(super) fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_WIDTH
}

/// A model's box: its header over one row per port, inputs on the left,
/// outputs on the right.
fn model_size(model: &ModelNode) -> (f64, f64) {
    let widest = |ports: &[crate::model::PortMetadata]| {
        ports
            .iter()
            .map(|p| text_width(&super::port_label(p)))
            .fold(0.0, f64::max)
    };
    let header = text_width(model.name()).max(text_width(model.type_name)) + 16.0;
    let ports = widest(model.inputs) + widest(model.outputs) + 28.0;
    let rows = model.inputs.len().max(model.outputs.len()) as f64;
    (header.max(ports).max(80.0), HEADER + rows * ROW + 4.0)
}

/// A two-line leaf (a source, a sink, a model not in the bench), `extra`
/// pixels wider for its shape.
fn leaf_size(name: &str, kind: &str, extra: f64) -> (f64, f64) {
    (
        text_width(name).max(text_width(kind)) + 16.0 + extra,
        HEADER,
    )
}

/// Each item's column: the longest chain of edges leading to it, edges
/// that close a cycle (met by a depth-first walk in item order) left out.
fn ranks(count: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut successors = vec![Vec::new(); count];
    for &(from, to) in edges {
        successors[from].push(to);
    }
    let order = topological_order(&successors);
    let position: Vec<usize> = {
        let mut position = vec![0; count];
        for (i, &item) in order.iter().enumerate() {
            position[item] = i;
        }
        position
    };
    let mut rank = vec![0; count];
    for &item in &order {
        for &next in &successors[item] {
            // An edge backwards in the order closes a cycle: ignored.
            if position[next] > position[item] {
                rank[next] = rank[next].max(rank[item] + 1);
            }
        }
    }
    rank
}

/// The items in reverse post-order of a depth-first walk started from
/// each item in turn: every edge not closing a cycle goes forward.
fn topological_order(successors: &[Vec<usize>]) -> Vec<usize> {
    let mut visited = vec![false; successors.len()];
    let mut post_order = Vec::with_capacity(successors.len());
    for start in 0..successors.len() {
        if visited[start] {
            continue;
        }
        visited[start] = true;
        // An explicit stack of (item, next successor to visit).
        let mut stack = vec![(start, 0)];
        while let Some(&mut (item, ref mut next)) = stack.last_mut() {
            if let Some(&child) = successors[item].get(*next) {
                *next += 1;
                if !visited[child] {
                    visited[child] = true;
                    stack.push((child, 0));
                }
            } else {
                post_order.push(item);
                stack.pop();
            }
        }
    }
    post_order.reverse();
    post_order
}

/// The items of each column, ordered by the average row of their
/// predecessors in earlier columns (two sweeps), ties in item order.
fn order_columns(rank: &[usize], edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let columns = rank.iter().max().map_or(0, |&r| r + 1);
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); columns];
    for (item, &r) in rank.iter().enumerate() {
        order[r].push(item);
    }
    let mut predecessors = vec![Vec::new(); rank.len()];
    for &(from, to) in edges {
        if rank[from] < rank[to] {
            predecessors[to].push(from);
        }
    }
    for _ in 0..2 {
        let mut row = vec![0.0; rank.len()];
        for column in &order {
            for (i, &item) in column.iter().enumerate() {
                row[item] = i as f64;
            }
        }
        for column in order.iter_mut().skip(1) {
            let key = |item: usize| match predecessors[item].len() {
                0 => row[item],
                n => predecessors[item].iter().map(|&p| row[p]).sum::<f64>() / n as f64,
            };
            let mut keyed: Vec<(f64, usize)> =
                column.iter().map(|&item| (key(item), item)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            *column = keyed.into_iter().map(|(_, item)| item).collect();
            for (i, &item) in column.iter().enumerate() {
                row[item] = i as f64;
            }
        }
    }
    order
}

/// An item (by index) and its top left corner.
type Place = (usize, f64, f64);

/// Places the columns side by side, each centred vertically: the size of
/// the whole, and each item's corner.
fn place_columns(columns: &[Vec<usize>], sizes: &[(f64, f64)]) -> ((f64, f64), Vec<Place>) {
    let column_size = |column: &Vec<usize>| {
        let w = column.iter().map(|&i| sizes[i].0).fold(0.0, f64::max);
        let h = column.iter().map(|&i| sizes[i].1).sum::<f64>()
            + GAP_Y * column.len().saturating_sub(1) as f64;
        (w, h)
    };
    let measured: Vec<(f64, f64)> = columns.iter().map(column_size).collect();
    let height = measured.iter().map(|m| m.1).fold(0.0, f64::max);
    let mut places = Vec::new();
    let mut x = 0.0;
    for (column, &(w, h)) in columns.iter().zip(&measured) {
        let mut y = (height - h) / 2.0;
        for &item in column {
            let (item_w, item_h) = sizes[item];
            places.push((item, x + (w - item_w) / 2.0, y));
            y += item_h + GAP_Y;
        }
        x += w + GAP_X;
    }
    let width = (x - GAP_X).max(0.0);
    ((width, height), places)
}
