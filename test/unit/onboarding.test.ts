import { expect } from 'chai';
import { onboardingOf } from '../../src/auth/auth-service.js';

describe('unit: where a user stands in onboarding', () => {
  it('asks for a password change until the temporary one is replaced', () => {
    expect(onboardingOf({ changedPassword: false, emailSetupSkipped: false }, false)).to.deep.equal({ needsPasswordChange: true, needsEmailSetup: true });
    expect(onboardingOf({ changedPassword: true, emailSetupSkipped: false }, false)).to.deep.equal({ needsPasswordChange: false, needsEmailSetup: true });
  });

  it('asks for a mail account until one is active or the user skipped it', () => {
    expect(onboardingOf({ changedPassword: true, emailSetupSkipped: false }, true)).to.deep.equal({ needsPasswordChange: false, needsEmailSetup: false });
    expect(onboardingOf({ changedPassword: true, emailSetupSkipped: true }, false)).to.deep.equal({ needsPasswordChange: false, needsEmailSetup: false });
  });
});
