-- AlterTable
ALTER TABLE "plan_assignments" ALTER COLUMN "assigned_by" SET DATA TYPE TEXT;

-- CreateTable
CREATE TABLE "billing_customers" (
    "provider" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_customers_pkey" PRIMARY KEY ("provider","customer_id")
);

-- CreateTable
CREATE TABLE "billing_subscriptions" (
    "provider" TEXT NOT NULL,
    "subscription_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "user_id" UUID,
    "status" TEXT NOT NULL,
    "price_id" TEXT,
    "current_period_end" TIMESTAMPTZ(3),
    "cancel_at_period_end" BOOLEAN NOT NULL DEFAULT false,
    "last_event_at" TIMESTAMPTZ(3) NOT NULL,
    "last_event_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "billing_subscriptions_pkey" PRIMARY KEY ("provider","subscription_id")
);

-- CreateTable
CREATE TABLE "processed_billing_events" (
    "provider" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_billing_events_pkey" PRIMARY KEY ("provider","event_id")
);

-- CreateIndex
CREATE INDEX "billing_customers_user_id_created_at_idx" ON "billing_customers"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "billing_subscriptions_user_id_idx" ON "billing_subscriptions"("user_id");

-- CreateIndex
CREATE INDEX "billing_subscriptions_provider_customer_id_idx" ON "billing_subscriptions"("provider", "customer_id");

-- CreateIndex
CREATE INDEX "processed_billing_events_received_at_idx" ON "processed_billing_events"("received_at");
