//! Which top-level fields of `self`/`oldSelf` a rule reads, so that only those are converted
//! to CEL values (conversion dominates the cost of a rule). `None` means the variable is used
//! as a whole somewhere and must be converted entirely.

use kube_cel::cel::common::ast::{EntryExpr, Expr, IdedExpr};
use std::collections::BTreeSet;

/// The fields of `var` an expression selects, or `None` if `var` is used bare.
pub(crate) fn selected_fields(e: &IdedExpr, var: &str) -> Option<BTreeSet<String>> {
    let mut fields = BTreeSet::new();
    walk(e, var, &mut fields).then_some(fields)
}

/// Returns false when `var` appears other than as `var.<field>`.
fn walk(e: &IdedExpr, var: &str, fields: &mut BTreeSet<String>) -> bool {
    match &e.expr {
        Expr::Ident(name) => name != var,
        Expr::Select(sel) => {
            if let Expr::Ident(name) = &sel.operand.expr
                && name == var
            {
                fields.insert(sel.field.clone());
                return true;
            }
            walk(&sel.operand, var, fields)
        }
        Expr::Call(call) => {
            call.target.as_deref().is_none_or(|t| walk(t, var, fields))
                && call.args.iter().all(|a| walk(a, var, fields))
        }
        Expr::Comprehension(c) => [
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ]
        .into_iter()
        .all(|x| walk(x, var, fields)),
        Expr::List(l) => l.elements.iter().all(|x| walk(x, var, fields)),
        Expr::Map(m) => m.entries.iter().all(|en| match &en.expr {
            EntryExpr::MapEntry(me) => walk(&me.key, var, fields) && walk(&me.value, var, fields),
            EntryExpr::StructField(sf) => walk(&sf.value, var, fields),
        }),
        Expr::Struct(s) => s.entries.iter().all(|en| match &en.expr {
            EntryExpr::MapEntry(me) => walk(&me.key, var, fields) && walk(&me.value, var, fields),
            EntryExpr::StructField(sf) => walk(&sf.value, var, fields),
        }),
        Expr::Literal(_) | Expr::Unspecified => true,
    }
}

/// Unions the fields needed by several expressions (`None` wins).
pub(crate) fn union(
    acc: Option<BTreeSet<String>>,
    next: Option<BTreeSet<String>>,
) -> Option<BTreeSet<String>> {
    match (acc, next) {
        (Some(mut a), Some(b)) => {
            a.extend(b);
            Some(a)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::cel::Program;

    fn fields(rule: &str) -> Option<Vec<String>> {
        let p = Program::compile(rule).unwrap();
        selected_fields(p.expression(), "self").map(|f| f.into_iter().collect())
    }

    #[test]
    fn rule_reading_fields_needs_only_those_fields() {
        assert_eq!(
            fields("self.a + size(self.b) > 0 && has(self.c)"),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
    }

    #[test]
    fn rule_using_self_whole_needs_everything() {
        assert_eq!(fields("self == oldSelf"), None);
        assert_eq!(fields("size(self) > 1"), None);
        assert_eq!(fields("self.all(x, x != '')"), None);
    }
}
