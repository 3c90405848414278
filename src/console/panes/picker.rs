//! The policy picker: every policy the engine knows (`PolicyName::ALL`)
//! with its parameters.

use super::{Ctx, centered};
use crate::console::picker::PickerState;
use crate::policy::MaxJumps;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

pub fn render(p: &PickerState, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let cursor = |row: usize| {
        if p.cursor == row {
            Span::styled("▸ ", ctx.head())
        } else {
            Span::raw("  ")
        }
    };
    let mut lines = Vec::new();
    for (i, name) in p.names.iter().enumerate() {
        let chosen = i == p.chosen;
        let mut style = ctx.style(ratatui::style::Style::new());
        if chosen {
            style = style.add_modifier(Modifier::BOLD);
        }
        lines.push(Line::from(vec![
            cursor(i),
            Span::styled(if chosen { "● " } else { "○ " }, style),
            Span::styled(name.as_str().to_uppercase(), style),
        ]));
    }
    let jumps = match p.max_jumps {
        MaxJumps::Limit(m) => m.to_string(),
        MaxJumps::Unlimited => "∞".to_string(),
    };
    lines.push(Line::from(vec![
        cursor(p.max_jumps_row()),
        Span::raw(format!("maxJumps   ◀ {jumps} ▶  (digits; u = ∞)")),
    ]));
    lines.push(Line::from(vec![
        cursor(p.placement_row()),
        Span::raw(format!(
            "placement  ◀ {} ▶",
            p.placement.as_str().replace('-', " ")
        )),
    ]));
    lines.push(Line::from(vec![
        cursor(p.order_row()),
        Span::raw(format!(
            "backfill   ◀ {} first ▶  (EASY, conservative)",
            p.order.describe()
        )),
    ]));
    lines.push(Line::from(vec![
        cursor(p.machines_row()),
        Span::raw(format!(
            "processors ◀ {} ▶  (backfilling on one cluster)",
            match p.machines {
                crate::policy::Machines::Counted => "counted",
                crate::policy::Machines::Pinned => "pinned",
            }
        )),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::raw("Enter applies "),
        Span::styled(p.spec().label(), ctx.head()),
    ]));
    lines.push(Line::styled(
        "to the queue as it stands; running jobs keep running",
        ctx.dim(),
    ));
    let rect = centered(area, 68, lines.len() as u16 + 2);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .block(ctx.block(" Policy · Esc cancels ", None))
        .render(rect, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::panes::testing::text;
    use crate::policy::{PolicyName, PolicySpec};

    #[test]
    fn lists_every_policy_and_the_parameters() {
        let p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        let area = Rect::new(0, 0, 70, 20);
        let mut buf = Buffer::empty(area);
        render(&p, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        for name in PolicyName::ALL {
            assert!(t.contains(&name.as_str().to_uppercase()), "{t}");
        }
        assert!(t.contains("● FPFS"), "{t}");
        assert!(t.contains("maxJumps   ◀ 10 ▶"), "{t}");
        assert!(
            t.contains("Enter applies FPFS(maxJumps 10) + worst fit"),
            "{t}"
        );
        assert!(t.contains("backfill   ◀ arrival first ▶"), "{t}");
        assert!(t.contains("processors ◀ counted ▶"), "{t}");
    }
}
