/**
 * LIKE terms that are folded by crm_fold after escaping (src/db/escape-like.ts): issue 52, finding 14.
 * A fullwidth ％ ＿ ＼ folds to % _ \, so it must be escaped as that metacharacter before the fold.
 */
import { expect } from 'chai';
import { escapeLike, escapeLikeBeforeFold } from '../../src/db/escape-like.js';

describe('unit: LIKE escaping before the fold', () => {
  it('escapes the ASCII metacharacters as escapeLike does', () => {
    expect(escapeLikeBeforeFold('50%_a\\b')).to.equal('50\\%\\_a\\\\b');
    expect(escapeLikeBeforeFold('Kováč')).to.equal('Kováč');
  });

  it('escapes the fullwidth, small and mathematical forms the fold turns into % _ \\', () => {
    expect(escapeLikeBeforeFold('a％b')).to.equal('a\\%b');
    expect(escapeLikeBeforeFold('a＿b')).to.equal('a\\_b');
    expect(escapeLikeBeforeFold('a＼b')).to.equal('a\\\\b');
    expect(escapeLikeBeforeFold('﹪﹨∖')).to.equal('\\%\\\\\\\\');
  });

  it('leaves escapeLike (terms compared unfolded) as it was', () => {
    expect(escapeLike('a％b')).to.equal('a％b');
  });
});
