//! The dependency graph as SVG: a layered layout of our own (no layout
//! crate draws clusters and stays small enough for thousands of nodes).
//!
//! Each cluster (a provider instance, or a module for a configuration) is
//! a band of its own, stacked top to bottom. Inside a band, a node's
//! column is its depth in the dependency order over the whole graph (what
//! it depends on sits to its left), so edges run left to right wherever
//! the clusters are; a column holding more nodes than fit in a band's
//! height wraps into further sub-columns. The layout is a pure function of
//! the input, so the same plan always draws the same picture.

use crate::{escape, escape_text};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One node: `id` is the fragment its link points at.
pub struct Node {
    pub id: String,
    pub label: String,
    /// A second, smaller line (the module instance); empty for none.
    pub sublabel: String,
    /// The full text shown as the node's tooltip.
    pub title: String,
    /// The CSS class giving its colour (`a-create`...).
    pub class: &'static str,
    pub symbol: &'static str,
    pub cluster: String,
}

/// `edges` are (from, to) indexes into `nodes`: `from` depends on `to`.
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<(usize, usize)>,
}

const NODE_WIDTH: usize = 262;
const NODE_HEIGHT: usize = 36;
const COLUMN_GAP: usize = 40;
const ROW_GAP: usize = 8;
const BAND_TITLE: usize = 24;
const BAND_PAD: usize = 12;
const LABEL_CHARS: usize = 30;
/// The second line is smaller: more characters fit.
const SUBLABEL_CHARS: usize = 42;

/// Depth of every node: 0 for one depending on no other node, else one
/// more than the deepest of its dependencies. A cycle (which a valid plan
/// does not have) is cut where the walk meets a node still being visited.
fn depths(graph: &Graph) -> Vec<usize> {
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); graph.nodes.len()];
    for &(from, to) in &graph.edges {
        if from < deps.len() && to < deps.len() && from != to {
            deps[from].push(to);
        }
    }
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Visiting,
        Done,
    }
    let mut state = vec![State::New; deps.len()];
    let mut depth = vec![0usize; deps.len()];
    for start in 0..deps.len() {
        if state[start] != State::New {
            continue;
        }
        // An explicit stack: module trees can be deep enough that
        // recursion would be a risk.
        let mut stack = vec![(start, 0usize)];
        state[start] = State::Visiting;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = deps[node].get(*next) {
                *next += 1;
                if state[dep] == State::New {
                    state[dep] = State::Visiting;
                    stack.push((dep, 0));
                }
            } else {
                depth[node] = deps[node]
                    .iter()
                    .filter(|&&d| state[d] == State::Done)
                    .map(|&d| depth[d] + 1)
                    .max()
                    .unwrap_or(0);
                state[node] = State::Done;
                stack.pop();
            }
        }
    }
    depth
}

/// `label` in at most `limit` characters, keeping its end (the instance
/// key) and marking the cut with `…`.
fn shorten(label: &str, limit: usize) -> String {
    let count = label.chars().count();
    if count <= limit {
        return label.to_string();
    }
    let tail: String = label.chars().skip(count - (limit - 1)).collect();
    format!("…{tail}")
}

/// The SVG document (inline in the page) for `graph`.
pub fn render_svg(graph: &Graph) -> String {
    let depth = depths(graph);
    let mut clusters: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        clusters.entry(&node.cluster).or_default().push(i);
    }
    // Rows per band, about square for big bands, at least eight; then how
    // many sub-columns each depth needs in the widest band, so that one
    // depth is one range of x in every band.
    let mut band_columns = Vec::new();
    let mut sub_columns: BTreeMap<usize, usize> = BTreeMap::new();
    for members in clusters.values() {
        let mut columns: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &m in members {
            columns.entry(depth[m]).or_default().push(m);
        }
        let rows = ((members.len() as f64).sqrt().ceil() as usize)
            .max(8)
            .min(members.len().max(1));
        for (d, nodes) in &columns {
            let needed = nodes.len().div_ceil(rows);
            let entry = sub_columns.entry(*d).or_default();
            *entry = (*entry).max(needed);
        }
        band_columns.push((columns, rows));
    }
    let mut column_x: BTreeMap<usize, usize> = BTreeMap::new();
    let mut x = BAND_PAD;
    for (d, count) in &sub_columns {
        column_x.insert(*d, x);
        x += count * (NODE_WIDTH + COLUMN_GAP);
    }
    let width = x;
    let mut position = vec![(0usize, 0usize); graph.nodes.len()];
    let mut bands = Vec::new();
    let mut top = 0usize;
    for ((name, _), (columns, rows)) in clusters.iter().zip(&band_columns) {
        for (d, nodes) in columns {
            let x0 = column_x.get(d).copied().unwrap_or(BAND_PAD);
            for (c, chunk) in nodes.chunks(*rows).enumerate() {
                for (r, &n) in chunk.iter().enumerate() {
                    position[n] = (
                        x0 + c * (NODE_WIDTH + COLUMN_GAP),
                        top + BAND_TITLE + BAND_PAD + r * (NODE_HEIGHT + ROW_GAP),
                    );
                }
            }
        }
        let used_rows = columns
            .values()
            .map(|nodes| nodes.len().min(*rows))
            .max()
            .unwrap_or(1);
        let band_height = BAND_TITLE + 2 * BAND_PAD + used_rows * (NODE_HEIGHT + ROW_GAP);
        bands.push((name.to_string(), top, band_height));
        top += band_height + BAND_PAD;
    }
    let height = top.max(1);
    let width = width.max(NODE_WIDTH);
    let mut svg = String::with_capacity(graph.nodes.len() * 200 + graph.edges.len() * 60);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"graph\" role=\"img\" \
         aria-label=\"Dependency graph of the changed resources\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    );
    for (name, y, h) in &bands {
        let _ = write!(
            svg,
            "<g class=\"band\"><rect x=\"2\" y=\"{y}\" width=\"{}\" height=\"{h}\" rx=\"6\"/>\
             <text x=\"{BAND_PAD}\" y=\"{}\">{}</text></g>",
            width - 4,
            y + 17,
            escape_text(name)
        );
    }
    svg.push_str("<g class=\"edges\">");
    for &(from, to) in &graph.edges {
        if from >= position.len() || to >= position.len() || from == to {
            continue;
        }
        // From the dependency's right edge to the dependent's left edge.
        let (x1, y1) = (
            position[to].0 + NODE_WIDTH,
            position[to].1 + NODE_HEIGHT / 2,
        );
        let (x2, y2) = (position[from].0, position[from].1 + NODE_HEIGHT / 2);
        let bend = (x2 as i64 - x1 as i64).abs().max(40) / 2;
        let _ = write!(
            svg,
            "<path d=\"M{x1} {y1}C{} {y1} {} {y2} {x2} {y2}\"/>",
            x1 as i64 + bend,
            x2 as i64 - bend
        );
    }
    svg.push_str("</g>");
    for (i, node) in graph.nodes.iter().enumerate() {
        let (x, y) = position[i];
        let label = shorten(&node.label, LABEL_CHARS);
        let sublabel = shorten(&node.sublabel, SUBLABEL_CHARS);
        // The tooltip only where the labels do not already say it all.
        let title = if label == node.label && sublabel == node.sublabel {
            String::new()
        } else {
            format!("<title>{}</title>", escape_text(&node.title))
        };
        let (text_y, sub) = if sublabel.is_empty() {
            (y + 22, String::new())
        } else {
            (
                y + 15,
                format!(
                    "<text class=\"sub\" x=\"{}\" y=\"{}\">{}</text>",
                    x + 6,
                    y + 30,
                    escape_text(&sublabel)
                ),
            )
        };
        let _ = write!(
            svg,
            "<a href=\"#{id}\" class=\"node {class}\">{title}<rect x=\"{x}\" y=\"{y}\" \
             width=\"{NODE_WIDTH}\" height=\"{NODE_HEIGHT}\"/><text x=\"{}\" y=\"{text_y}\">{} {}</text>{sub}</a>",
            x + 6,
            escape_text(node.symbol),
            escape_text(&label),
            id = escape(&node.id),
            class = node.class,
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, cluster: &str) -> Node {
        Node {
            id: id.to_string(),
            label: id.to_string(),
            sublabel: String::new(),
            title: id.to_string(),
            class: "a-create",
            symbol: "+",
            cluster: cluster.to_string(),
        }
    }

    #[test]
    fn dependencies_sit_in_earlier_columns_than_what_depends_on_them() {
        let graph = Graph {
            nodes: vec![node("a", "x"), node("b", "x"), node("c", "y")],
            edges: vec![(0, 1), (1, 2)],
        };
        assert_eq!(depths(&graph), vec![2, 1, 0]);
    }

    #[test]
    fn a_cycle_ends_the_walk_instead_of_looping() {
        let graph = Graph {
            nodes: vec![node("a", "x"), node("b", "x")],
            edges: vec![(0, 1), (1, 0)],
        };
        let d = depths(&graph);
        assert_eq!(d.len(), 2);
        assert!(d.contains(&0));
    }

    #[test]
    fn labels_and_cluster_names_are_escaped_in_the_svg() {
        let graph = Graph {
            nodes: vec![node("x<script>", "p[\"<b>\"]")],
            edges: vec![],
        };
        let svg = render_svg(&graph);
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(!svg.contains("<b>"), "{svg}");
        assert!(svg.contains("x&lt;script&gt;"), "{svg}");
    }

    #[test]
    fn long_labels_keep_their_end() {
        let long = "module.network.aws_subnet.private[\"eu-west-1a\"]";
        let short = shorten(long, LABEL_CHARS);
        assert_eq!(short.chars().count(), LABEL_CHARS);
        assert!(short.ends_with("[\"eu-west-1a\"]"));
    }
}
