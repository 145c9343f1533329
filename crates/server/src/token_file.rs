//! kube-apiserver's static token file (`--token-auth-file`): CSV lines
//! `token,user,uid[,"group1,group2"]`, at least three columns, the groups column quoted
//! when it holds several. kapi's own data dir holds one (`tokens.csv`, the admin kubeconfig's
//! token, user `admin` in `system:masters`).

use crate::authn::User;
use std::collections::HashMap;

/// A token file that cannot be used, with the line at fault (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenFileError {
    /// Fewer than three columns.
    #[error("line {0}: a token line needs at least 3 columns (token,user,uid)")]
    TooFewColumns(usize),
    /// An empty token or user.
    #[error("line {0}: empty token or user")]
    Empty(usize),
    /// A quote that never closes.
    #[error("line {0}: unterminated quoted field")]
    Unterminated(usize),
    /// The same token twice.
    #[error("line {0}: the token is already used on an earlier line")]
    Duplicate(usize),
}

/// Splits one CSV line into fields (RFC 4180 quoting: `"a,b"`, `""` for a quote).
fn fields(line: &str, n: usize) -> Result<Vec<String>, TokenFileError> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err(TokenFileError::Unterminated(n));
    }
    out.push(field);
    Ok(out)
}

/// Parses a token file: token → user (with `system:authenticated` among its groups).
pub fn parse(text: &str) -> Result<HashMap<String, User>, TokenFileError> {
    let mut users = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let cols = fields(line, n)?;
        if cols.len() < 3 {
            return Err(TokenFileError::TooFewColumns(n));
        }
        let (token, name, uid) = (cols[0].trim(), cols[1].trim(), cols[2].trim());
        if token.is_empty() || name.is_empty() {
            return Err(TokenFileError::Empty(n));
        }
        let groups = cols
            .get(3)
            .map(|g| {
                g.split(',')
                    .map(str::trim)
                    .filter(|g| !g.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let user = User::authenticated(name, uid, groups);
        if users.insert(token.to_owned(), user).is_some() {
            return Err(TokenFileError::Duplicate(n));
        }
    }
    Ok(users)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_the_user_its_uid_and_quoted_groups() {
        let users = parse("t1,alice,42,\"dev,ops\"\nt2,bob,7\n").unwrap();
        let alice = &users["t1"];
        assert_eq!(alice.name, "alice");
        assert_eq!(alice.uid, "42");
        assert_eq!(alice.groups, ["dev", "ops", "system:authenticated"]);
        assert_eq!(users["t2"].groups, ["system:authenticated"]);
    }

    #[test]
    fn kapis_own_admin_line_is_in_system_masters() {
        let users = parse("abc,admin,admin,\"system:masters\"\n").unwrap();
        assert!(users["abc"].groups.iter().any(|g| g == "system:masters"));
    }

    #[test]
    fn short_lines_unterminated_quotes_and_duplicates_are_refused() {
        assert_eq!(parse("t1,alice"), Err(TokenFileError::TooFewColumns(1)));
        assert_eq!(
            parse("t1,alice,1,\"dev"),
            Err(TokenFileError::Unterminated(1))
        );
        assert_eq!(parse("t1,a,1\nt1,b,2"), Err(TokenFileError::Duplicate(2)));
        assert_eq!(parse(",a,1"), Err(TokenFileError::Empty(1)));
    }
}
